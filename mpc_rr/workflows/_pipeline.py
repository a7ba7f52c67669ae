"""``mpc-rr run``: the whole pipeline on a data set, evaluated against the true data.

Three steps, each with one job:

* :func:`execute` builds the roles (coordinator + one data party per record)
  and runs them with a :class:`~mpc_rr.core.Runner` -> :class:`Execution`;
* :func:`evaluate` answers count queries of coverage 0.1 and 0.5 (Section
  6.5) against the true records of the participating parties with
  RR-Independent (from the Sec. 4.1 records when the dependence source is
  ``rr``; otherwise a centrally computed reference at the same per-attribute
  epsilon, labelled as such), RR-Clusters, and both with RR-Adjustment ->
  :class:`Evaluation` (frozen);
* :func:`~mpc_rr.workflows.run_results` types what the run reports
  (:class:`~mpc_rr.workflows.RunResults`); ``results.json`` is its
  ``to_json()`` (:func:`to_json`).

The data set's name (:attr:`mpc_rr.data.Dataset.name`: ``adult`` for the
shipped Adult, a CSV file's stem unless named) labels every output: the run
id, ``results.json``'s ``dataset`` and the plot's title.

A seeded run is a simulation: every output carries ``noise`` saying that the
noise can be recomputed from the seed (:func:`mpc_rr.core.noise_source`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from mpc_rr.core import COORDINATOR, ProtocolAbort, Role, Runner, RunResult, UsageError
from mpc_rr.core._gc import simulation_gc
from mpc_rr.data import Dataset
from mpc_rr.estimation import AdjustmentResult, answer, make_queries, relative_error, true_count
from mpc_rr.estimation._models import FactorModel
from mpc_rr.mdrr import adjust, rr_independent
from mpc_rr.pipeline import PipelineConfig, PipelinePlan, PipelineResult
from mpc_rr.pipeline import _signing as signing
from mpc_rr.privacy import Ledger, PhaseSpec
from mpc_rr.secure_sum import DEFAULT_SUM, merge_sum_options
from mpc_rr.workflows._ledger_audit import audit_ledger
from mpc_rr.workflows._privacy import pipeline_ledger

if TYPE_CHECKING:
    from mpc_rr.workflows._run_results import RunResults

__all__ = [
    "Evaluation",
    "Execution",
    "RunAborted",
    "RunOptions",
    "evaluate",
    "execute",
    "ledger_json",
    "run_and_evaluate",
    "run_and_report",
    "run_ledger",
    "to_json",
]

SIGMAS = (0.1, 0.5)
METHOD_ORDER = (
    "RR-Independent",
    "RR-Clusters",
    "RR-Independent+Adjustment",
    "RR-Clusters+Adjustment",
)


@dataclass(frozen=True)
class RunOptions:
    """Everything a user chooses for one run (validated here and in :class:`PipelineConfig`)."""

    parties: int | None = None  # subsample of the data (None: every record)
    p: float = 0.7
    tv: int = 100
    td: float = 0.1
    dependence: str = "rr"
    mechanism: str = "cluster"
    estimator: str = "clip"
    adjust_iterations: int = 50
    seed: int = 1
    queries: int = 200
    max_dropout: float | None = None
    max_corrupt: float | None = None
    secagg_degree: int | None = None
    secagg_failure: float | None = None
    sum: str = DEFAULT_SUM  # the dependence sum protocol (secure-sum sources)
    sum_options: Mapping[str, Any] | None = None  # its options (any protocol's; the four above: SecAgg+'s, as aliases)
    audit_trials: int = 0  # > 0: audit each phase's strongest release after the run (ledger's audit_lower)
    dp_epsilon: float | None = None  # secure-sum dependence: central epsilon of its noisy counts
    dp_delta: float = 1e-6

    def inner_sum_options(self) -> dict[str, object]:
        """The dependence sum's options the user gave: ``sum_options`` and the SecAgg+ aliases
        (``max_dropout``, ``max_corrupt``, ``secagg_degree`` -> ``degree``, ``secagg_failure``
        -> ``failure``); a protocol without one refuses it, naming the protocols that have it."""
        aliases = {"max_dropout": self.max_dropout, "max_corrupt": self.max_corrupt,
                   "degree": self.secagg_degree, "failure": self.secagg_failure}  # fmt: skip
        return merge_sum_options(self.sum_options, aliases)

    def __post_init__(self) -> None:
        if self.audit_trials != 0 and self.audit_trials < 100:
            raise UsageError(f"audit trials must be 0 (no audit) or >= 100, got {self.audit_trials}")
        if self.queries < 1:
            raise UsageError(f"queries must be >= 1 per coverage, got {self.queries}")
        if self.parties is not None and self.parties < 2:
            raise UsageError(f"parties must be >= 2, got {self.parties}")


@dataclass(frozen=True)
class Execution:
    """The protocol run: what the coordinator computed and what the run cost."""

    dataset: str  # the data set's name (``data.name``)
    data: Dataset  # the participating records (after subsampling), in party order
    config: PipelineConfig
    result: PipelineResult
    run: RunResult
    setup_s: float
    protocol_s: float
    # wall seconds per protocol phase, cut where the coordinator reports progress:
    # "network setup" (the runner before the parties run: TCP keys and handshakes),
    # "dependence" (to its last dependence submission), "clustering + release" (to its
    # last release), "estimation" (Eq. 2, repair and RR-Adjustment, to the end)
    phases: dict[str, float] = field(default_factory=dict)


class RunAborted(ProtocolAbort):
    """The coordinator aborted (e.g. too many dropouts); ``run`` still holds the costs."""

    def __init__(self, abort: ProtocolAbort, run: RunResult, protocol_s: float) -> None:
        super().__init__(str(abort), abort.culprits, abort.suspects)
        self.run = run
        self.protocol_s = protocol_s


@dataclass(frozen=True)
class Evaluation:
    """Accuracy of every estimation method against the truth, next to the execution."""

    execution: Execution
    relative_error: dict[str, dict[str, float]]  # method -> sigma -> median relative error
    independent_source: str
    evaluation_s: float
    adjustments: dict[str, AdjustmentResult] = field(default_factory=dict)  # "+Adjustment" method -> its run
    # the run's privacy ledger (docs/privacy.md) and the phases it was built from (``None``: not built)
    ledger: Ledger | None = None
    ledger_phases: tuple[PhaseSpec, ...] = ()


def _subsample(data: Dataset, n: int | None, seed: int) -> Dataset:
    if n is None or n == data.n:
        return data
    if n > data.n:
        raise UsageError(f"parties must be at most the {data.n} records of the data set, got {n}")
    return data.subsample(n, np.random.default_rng(np.random.SeedSequence([seed, 0xDA7A])))


def execute(
    opts: RunOptions,
    runner: Runner,
    data: Dataset,
    *,
    progress: Callable[[str, int, int], None] | None = None,
    drop: Callable[[dict[int, Role], PipelineConfig], dict[int, Role]] | None = None,
    keep_rows: bool = True,
) -> Execution:
    """Plan the roles of one run over ``data`` and run them with ``runner``.

    The run id is ``<data.name>-<seed>``.  A sharded runner gets the
    :class:`~mpc_rr.pipeline.PipelinePlan` and builds the roles in its
    workers (inside ``protocol_s``); any other runner gets the roles built
    here (inside ``setup_s``, with the planning).  ``drop(roles, config)``
    may replace roles before the run (a scenario's injected dropouts; it
    needs the roles built here, so not with a sharded runner).  ``keep_rows=False``: the
    coordinator's result holds the released records' histogram, not every party's row.
    """
    data = _subsample(data, opts.parties, opts.seed)
    # the coordinator's key comes from the OS CSPRNG; nothing secret derives from the seed
    key = signing.new_signing_key()
    cfg = PipelineConfig(
        schema=data.schema, n=data.n, p=opts.p, tv=opts.tv, td=opts.td,
        dependence=opts.dependence, mechanism=opts.mechanism, estimator=opts.estimator,
        adjust_iterations=opts.adjust_iterations, coordinator_key=signing.public_bytes(key),
        run=f"{data.name[:200]}-{opts.seed}", sum_protocol=opts.sum, sum_options=opts.inner_sum_options(),
        dp_epsilon=opts.dp_epsilon, dp_delta=opts.dp_delta,
    )  # fmt: skip
    if cfg.dependence != "rr":  # the sum's own parameter checks (SecAgg+'s thresholds) before
        from mpc_rr.pipeline._dependence import dependence_public

        dependence_public(cfg)
    marks: dict[str, float] = {}

    def timed(phase: str, done: int, total: int) -> None:
        marks[phase] = time.perf_counter()  # the last report of each phase
        if progress is not None:
            progress(phase, done, total)

    t0 = time.perf_counter()
    plan = PipelinePlan(
        cfg, data.codes, opts.seed, key.private_bytes_raw(), progress=timed, keep_rows=keep_rows
    )
    todo: PipelinePlan | dict[int, Role]
    if getattr(runner, "builds_in_workers", False):  # a sharded runner builds the roles where they run
        if drop is not None:
            raise UsageError("injected dropouts need the roles in one process: not with a sharded runner")
        todo = plan
    else:
        todo = plan.build(timed)
        if drop is not None:
            todo = drop(todo, cfg)
    t1 = time.perf_counter()
    with simulation_gc():  # the roles built above are frozen out of the collector's scans
        run = runner(todo)
    t2 = time.perf_counter()
    # what the runner spent before the parties ran (TCP: deployment keys and TLS handshakes)
    network = max(0.0, (t2 - t1) - run.costs.wall_s)
    dep_end = max(
        [marks[k] for k in ("DEPENDENCE", "SECURE SUM", "SECURE SUM SERVERS") if k in marks], default=t1 + network
    )
    rel_end = marks.get("RELEASE", dep_end)
    phases = {
        "network setup": network,
        "dependence": max(0.0, dep_end - t1 - network),
        "clustering + release": rel_end - dep_end,
        "estimation": t2 - rel_end,
    }
    try:
        result = run.roles[COORDINATOR].result
    except ProtocolAbort as exc:
        raise RunAborted(exc, run, t2 - t1) from exc
    return Execution(data.name, data, cfg, result, run, t1 - t0, t2 - t1, phases)


def evaluate(ex: Execution, opts: RunOptions) -> Evaluation:
    """Median relative error of count queries for every method (Section 6.5)."""
    t0 = time.perf_counter()
    res, cfg = ex.result, ex.config
    included = np.asarray(res.parties_release) - 1
    truth_codes = ex.data.codes[included]
    models: dict[str, Any] = {"RR-Clusters": res.model}
    runs: dict[str, AdjustmentResult] = {}
    if res.adjusted is not None:
        models["RR-Clusters+Adjustment"] = res.adjusted
        if res.adjustment is not None:
            runs["RR-Clusters+Adjustment"] = res.adjustment
    ind = res.independent_adjustment()
    source = "pipeline (Sec. 4.1 records)"
    if ind is not None:
        ests, adj, adj_run = ind
        models["RR-Independent"] = FactorModel(
            cfg.sizes,
            tuple((j,) for j in range(len(cfg.sizes))),
            tuple(e.distribution for e in ests),
        )
        if adj is not None:
            models["RR-Independent+Adjustment"] = adj
        if adj_run is not None:
            runs["RR-Independent+Adjustment"] = adj_run
    else:  # secure-sum sources release no per-attribute data: a central reference at equal epsilon
        source = "central reference at the same per-attribute epsilon"
        rng = np.random.default_rng(np.random.SeedSequence([opts.seed, 0x1AD]))
        rel = rr_independent(
            truth_codes, cfg.sizes, cfg.attribute_mechanisms(), rng, method=cfg.estimator
        )
        models["RR-Independent"] = rel.model
        models["RR-Independent+Adjustment"], runs["RR-Independent+Adjustment"] = adjust(
            rel, max_iter=cfg.adjust_iterations
        )
    models = {m: models[m] for m in METHOD_ORDER if m in models}
    qrng = np.random.default_rng(np.random.SeedSequence([opts.seed, 0x9E]))
    errors: dict[str, dict[str, float]] = {m: {} for m in models}
    n_rel = len(included)
    for s in SIGMAS:
        qs = make_queries(truth_codes, cfg.sizes, opts.queries, s, qrng)
        truth = [true_count(truth_codes, q) for q in qs]
        for name, model in models.items():
            errs = [
                relative_error(answer(model, q, n_rel), t) for q, t in zip(qs, truth, strict=True)
            ]
            errors[name][str(s)] = float(np.median(errs))
    evaluation_s = time.perf_counter() - t0
    ledger, phases = run_ledger(ex, audit_trials=opts.audit_trials, seed=opts.seed)
    return Evaluation(ex, errors, source, evaluation_s, runs, ledger, tuple(phases))


def to_json(ev: Evaluation, opts: RunOptions) -> dict[str, Any]:
    """The content of ``results.json`` (:meth:`RunResults.to_json` of :func:`run_results`)."""
    from mpc_rr.workflows._run_results import run_results

    return run_results(ev, opts).to_json()


def run_ledger(
    ex: Execution, delta: float = 1e-6, *, audit_trials: int = 0, seed: int = 0
) -> tuple[Ledger, list[PhaseSpec]]:
    """The run's privacy ledger (docs/privacy.md) and the phases it was built from;
    ``audit_trials`` > 0 fills each auditable phase's ``audit_lower`` (:func:`audit_ledger`)."""
    res = ex.result
    ledger, specs = pipeline_ledger(
        ex.config, res.clustering.clusters, parties_dependence=max(1, len(res.parties_dependence)),
        parties_release=max(1, len(res.parties_release)), delta=delta,
    )  # fmt: skip
    if audit_trials:
        ledger = audit_ledger(ledger, specs, trials=audit_trials, seed=seed)
    return ledger, specs


def ledger_json(ev: Evaluation) -> dict[str, Any]:
    """``results.json``'s ``privacy``: the evaluation's ledger, its printed lines and its curve."""
    from mpc_rr.workflows._run_results import privacy_record

    return privacy_record(ev).to_json()


def run_and_report(
    opts: RunOptions,
    runner: Runner,
    data: Dataset,
    *,
    progress: Callable[[str, int, int], None] | None = None,
) -> tuple[RunResults, Evaluation]:
    """:func:`execute`, :func:`evaluate` and :func:`~mpc_rr.workflows._run_results.run_results`
    in one call: the typed results (``results.json`` is their ``to_json()``) and the evaluation."""
    from mpc_rr.workflows._run_results import run_results

    ev = evaluate(execute(opts, runner, data, progress=progress), opts)
    return run_results(ev, opts), ev


def run_and_evaluate(
    opts: RunOptions,
    runner: Runner,
    data: Dataset,
    *,
    progress: Callable[[str, int, int], None] | None = None,
) -> tuple[dict[str, Any], Evaluation]:
    """:func:`run_and_report` with the results as their JSON document (``results.json``)."""
    results, ev = run_and_report(opts, runner, data, progress=progress)
    return results.to_json(), ev
