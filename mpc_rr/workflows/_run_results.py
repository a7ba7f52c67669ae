"""What one pipeline run reports, as frozen typed records: ``results.json`` is derived from them.

:func:`run_results` turns an :class:`~mpc_rr.workflows.Evaluation` into a
:class:`RunResults`; :meth:`RunResults.to_json` is the content of
``results.json`` (the command line writes it, its CSV and its figures from the
record, and prints its summary from the record's fields).  The warnings a
reader of the numbers must know (:func:`pipeline_warnings`) are part of the
record, so the command line, the scenario kinds and the Python API say the same.

Nothing here runs a protocol: the record is a view of the evaluation, computed once.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

from mpc_rr.core import CostReport
from mpc_rr.core._randomness import noise_source
from mpc_rr.privacy import Ledger
from mpc_rr.workflows._adjustment_checks import _worse, adjustment_checks, effective_records
from mpc_rr.workflows._tables import ErrorTable, PhaseEpsilons

if TYPE_CHECKING:
    from mpc_rr.estimation import AdjustmentResult
    from mpc_rr.workflows._pipeline import Evaluation, Execution, RunOptions

__all__ = [
    "AdjustmentFit",
    "AttributeInfo",
    "PrivacyRecord",
    "RunResults",
    "RunTiming",
    "SecureSumRecord",
    "pipeline_warnings",
    "run_results",
]


@dataclass(frozen=True)
class AttributeInfo:
    """One attribute of the run's schema: its name, ``ordinal`` or ``nominal``, its categories."""

    name: str
    kind: str
    categories: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "categories": list(self.categories)}


@dataclass(frozen=True)
class AdjustmentFit:
    """One RR-Adjustment (Algorithm 2): its passes, convergence, fit of the one-way marginals, the
    Kish effective records (who carries the estimate), and whether it made the estimate worse
    (by :data:`~mpc_rr.workflows.WORSE_BY`) on ``coverages_worse`` of the coverages compared."""

    iterations: int
    converged: bool
    max_marginal_gap: float
    effective_records: float
    worse_than_unadjusted: bool
    coverages_worse: str

    def to_json(self) -> dict[str, Any]:
        return {
            "iterations": self.iterations, "converged": self.converged,
            "max_marginal_gap": self.max_marginal_gap, "effective_records": self.effective_records,
            "worse_than_unadjusted": self.worse_than_unadjusted, "coverages_worse": self.coverages_worse,
        }  # fmt: skip


@dataclass(frozen=True)
class RunTiming:
    """Wall seconds: building the roles, running them, evaluating; and per protocol phase."""

    setup_s: float
    protocol_s: float
    evaluation_s: float
    phases_s: Mapping[str, float]

    def to_json(self) -> dict[str, Any]:
        return {"setup_s": self.setup_s, "protocol_s": self.protocol_s, "evaluation_s": self.evaluation_s,
                "phases_s": dict(self.phases_s)}  # fmt: skip


@dataclass(frozen=True)
class PrivacyRecord:
    """The run's privacy ledger (docs/privacy.md), its printed lines and the data of ``privacy.png``."""

    ledger: Ledger
    lines: tuple[str, ...]
    plot_data: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {**self.ledger.to_json(), "lines": list(self.lines), "plot_data": self.plot_data}


@dataclass(frozen=True)
class SecureSumRecord:
    """The dependence sum actually run: its protocol and options, the public parameters it derived
    for this ``n`` (for SecAgg+ the graph degree and threshold, Bell et al. 2020, Sec. 3, which set
    the bytes a party sends), the messages that reach the coordinator, the mean bytes sent per
    data party (whole run) and, with ``--dp-epsilon``, the Skellam noise inside the sum."""

    protocol: str
    options: Mapping[str, Any]
    parties: int
    params: Mapping[str, Any]
    messages_to_coordinator: int
    bytes_sent_per_data_party: float | None
    noise: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        doc = {
            "protocol": self.protocol, "options": self.options, "parties": self.parties,
            "params": self.params, "messages_to_coordinator": self.messages_to_coordinator,
            "bytes_sent_per_data_party": self.bytes_sent_per_data_party,
        }  # fmt: skip
        return doc if self.noise is None else {**doc, "noise": self.noise}


@dataclass(frozen=True)
class RunResults:
    """One pipeline run, evaluated: the fields of ``results.json`` (:meth:`to_json`), typed.

    ``epsilon``: each phase's local epsilon per party (``None``: exact counts, not DP);
    ``relative_error``: the median relative error of count queries per method and coverage
    (Sec. 6.5); ``adjustment``: the RR-Clusters adjustment's passes and convergence;
    ``adjustments``: every RR-Adjustment's fit; ``cost``: what every party sent and received;
    ``secure_sum``: the dependence sum (``None`` for ``dependence = "rr"``); ``dependences``:
    the measured dependence of each attribute pair; ``network``: the priced network's summary
    (``--network``); ``warnings``: what a reader of the numbers must know.
    """

    dataset: str
    run_id: str
    parties: int
    parties_released: int
    seed: int
    noise: str
    options: RunOptions
    attributes: tuple[AttributeInfo, ...]
    clusters: tuple[tuple[str, ...], ...]
    epsilon: PhaseEpsilons
    epsilon_note: str
    relative_error: ErrorTable
    independent_source: str
    adjustment: tuple[int, bool] | None  # (iterations, converged) of RR-Clusters+Adjustment
    adjustments: Mapping[str, AdjustmentFit]
    estimator: str
    cost: CostReport = field(repr=False)
    secure_sum: SecureSumRecord | None
    timing: RunTiming
    dependences: Mapping[str, float]
    peer_errors: tuple[str, ...]
    privacy: PrivacyRecord
    validity: tuple[Mapping[str, Any], ...]
    network: Mapping[str, Any] | None = None
    warnings: tuple[str, ...] = ()

    def with_network(self, summary: Mapping[str, Any]) -> RunResults:
        """The same results with the priced network's summary (``--network``)."""
        return replace(self, network=summary)

    def to_json(self) -> dict[str, Any]:
        """The content of ``results.json``."""
        doc: dict[str, Any] = {
            "dataset": self.dataset,
            "run_id": self.run_id,
            "parties": self.parties,
            "parties_released": self.parties_released,
            "seed": self.seed,
            "noise": self.noise,
            "options": asdict(self.options),
            "attributes": [a.to_json() for a in self.attributes],
            "clusters": [list(c) for c in self.clusters],
            "epsilon": self.epsilon.to_json(),
            "epsilon_note": self.epsilon_note,
            "relative_error": self.relative_error.to_json(),
            "independent_source": self.independent_source,
            "adjustment": None if self.adjustment is None
            else {"iterations": self.adjustment[0], "converged": self.adjustment[1]},
            "adjustments": {m: a.to_json() for m, a in self.adjustments.items()},
            "estimator": self.estimator,
            "cost": self.cost.to_json(),
            "secure_sum": None if self.secure_sum is None else self.secure_sum.to_json(),
            "timing": self.timing.to_json(),
            "dependences": dict(self.dependences),
            "peer_errors": list(self.peer_errors),
            "privacy": self.privacy.to_json(),
            "validity": [dict(v) for v in self.validity],
        }  # fmt: skip
        if self.network is not None:
            doc["network"] = self.network
        doc["warnings"] = list(self.warnings)
        return doc


def _finite(v: float) -> float | None:
    return None if math.isinf(v) else v


def _adjustment_fit(ev: Evaluation, method: str, run: AdjustmentResult) -> AdjustmentFit:
    worse, total = _worse(ev.relative_error, method)
    return AdjustmentFit(
        iterations=run.iterations, converged=run.converged, max_marginal_gap=run.max_marginal_gap,
        effective_records=effective_records(run.weights), worse_than_unadjusted=bool(worse),
        coverages_worse=f"{len(worse)} of {total}",
    )  # fmt: skip


def _secure_sum_record(ex: Execution) -> SecureSumRecord | None:
    cfg = ex.config
    if cfg.dependence == "rr":
        return None
    from mpc_rr.pipeline._dependence import dependence_public, dependence_sum
    from mpc_rr.secure_sum._family import sum_options_json

    per_party = ex.run.costs.data_parties()["mean"]
    pub = dependence_public(cfg)
    noise = cfg.dp_noise()
    return SecureSumRecord(
        protocol=cfg.sum_protocol, options=sum_options_json(cfg.sum_protocol, cfg.sum_options),
        parties=cfg.n, params=pub.as_json(),
        messages_to_coordinator=dependence_sum(cfg).messages_from_parties(pub, cfg.n),
        bytes_sent_per_data_party=per_party.get("bytes_sent"),
        noise=None if noise is None else {
            "mechanism": "skellam", "central_variance": noise.noise.central_variance,
            "party_variance": noise.noise.client_variance, "honest_min": noise.noise.honest_min,
            "offset": noise.offset, "epsilon": noise.noise.epsilon, "delta": noise.delta,
            "l1": noise.noise.sensitivity.l1, "l2": noise.noise.sensitivity.l2,
            "assumption": noise.noise.assumption(),
        },
    )  # fmt: skip


def privacy_record(ev: Evaluation) -> PrivacyRecord:
    """The evaluation's ledger (built now if the evaluation has none), its lines and its curve."""
    from mpc_rr.workflows._pipeline import run_ledger
    from mpc_rr.workflows._privacy import ledger_curve

    if ev.ledger is None:
        ledger, phases = run_ledger(ev.execution)
    else:
        ledger, phases = ev.ledger, list(ev.ledger_phases)
    return PrivacyRecord(ledger, tuple(ledger.lines()), ledger_curve(ledger, phases))


def run_results(ev: Evaluation, opts: RunOptions) -> RunResults:
    """The typed results of evaluation ``ev`` of a run with options ``opts`` (``results.json``)."""
    from mpc_rr.workflows._validity import pipeline_validity

    ex = ev.execution
    res = ex.result
    names = ex.config.schema.names
    attributes = tuple(AttributeInfo(a.name, "ordinal" if a.ordinal else "nominal", tuple(a.categories))
                       for a in ex.config.schema.attributes)  # fmt: skip
    dependences = {f"{names[i]}~{names[j]}": float(res.dependences[i, j])
                   for i in range(len(names)) for j in range(i + 1, len(names))}  # fmt: skip
    base = RunResults(
        dataset=ex.dataset,
        run_id=ex.config.run,
        parties=ex.config.n,
        parties_released=len(res.parties_release),
        seed=opts.seed,
        noise=noise_source(opts.seed),
        options=opts,
        attributes=attributes,
        clusters=tuple(tuple(c) for c in res.clustering.names(names)),
        epsilon=PhaseEpsilons(*(_finite(res.epsilon[k]) for k in ("dependence", "release", "total"))),
        epsilon_note="dependence epsilon is null (infinite) for secure-sum: exact counts are not DP"
        if math.isinf(res.epsilon["dependence"])
        else "sequential composition: dependence + release",
        relative_error=ErrorTable.from_json(ev.relative_error),
        independent_source=ev.independent_source,
        adjustment=None if res.adjustment is None else (res.adjustment.iterations, res.adjustment.converged),
        adjustments={m: _adjustment_fit(ev, m, a) for m, a in ev.adjustments.items()},
        estimator=ex.config.estimator,
        cost=ex.run.costs,
        secure_sum=_secure_sum_record(ex),
        timing=RunTiming(ex.setup_s, ex.protocol_s, ev.evaluation_s, dict(ex.phases)),
        dependences=dependences,
        peer_errors=tuple(m for log in ex.run.costs.peer_error_logs().values() for m in log.summary())[:20],
        privacy=privacy_record(ev),
        validity=tuple(pipeline_validity(ex.config)),
    )
    return replace(base, warnings=tuple(pipeline_warnings(base, ev)))


def pipeline_warnings(r: RunResults, ev: Evaluation) -> list[str]:
    """What a reader of the numbers must know (printed whatever the format, kept in results.json):
    RR-Adjustment's checks, errors that are nan, dropouts, a dependence phase that merged nothing
    (and what it cost), clusters with too few records per value combination, peer errors."""
    errors = r.relative_error.to_json()
    out = adjustment_checks(errors, ev.adjustments)
    bad = [f"{m} (sigma={s})" for m, by in errors.items() for s, v in by.items()
           if v is None or (isinstance(v, float) and math.isnan(v))]  # fmt: skip
    if bad:
        out.append(f"relative error is nan for {', '.join(bad)}: no query had a true count above zero")
    n_rel = r.parties_released
    if n_rel < r.parties:
        out.append(f"{r.parties - n_rel} of {r.parties} parties dropped out; the estimates use "
                   f"the {n_rel} that answered")  # fmt: skip
    cfg = ev.execution.config
    clusters = ev.execution.result.clustering.clusters
    if len(clusters) > 1 and all(len(c) == 1 for c in clusters):
        e = r.epsilon
        paid = ("" if e.dependence is None or e.total is None else
                f" at {e.total:.3g} per party instead of the {e.release:.3g} of the release alone")  # fmt: skip
        out.append(
            f"the dependence phase merged no attributes (every cluster is one attribute, no "
            f"dependence above --td {cfg.td}): RR-Clusters is RR-Independent drawn a second time{paid} "
            "(the dependence phase's reports are spent for nothing); lower --td, or raise --p for "
            "dependences the noise does not hide"
        )
    thin = [(math.prod(cfg.sizes[i] for i in c), c) for c in clusters]
    thin = [(cells, c) for cells, c in thin if n_rel < 5 * cells]
    if thin:
        cells, c = max(thin)
        names = "+".join(cfg.schema.names[i] for i in c)
        out.append(f"tiny sample: {len(thin)} cluster(s) have fewer than 5 released records per value "
                   f"combination (worst: {names}, {cells} combinations for {n_rel} records); their "
                   f"estimates are mostly noise")  # fmt: skip
    if r.cost.peer_errors:
        out.append(f"{r.cost.peer_errors} message(s) were rejected as peer errors (see peer_errors)")
    return out
