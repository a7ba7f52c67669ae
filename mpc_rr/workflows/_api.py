"""The researcher's entry points: one call per job, a frozen report back.

::

    import mpc_rr

    report = mpc_rr.run_pipeline("adult", parties=5000, p=0.7, dependence="secure-sum")
    report.clusters, report.relative_error.at("RR-Clusters+Adjustment", 0.1), report.epsilon.total

    sums = mpc_rr.run_secure_sum("secagg", inputs)             # any registered sum protocol
    audit = mpc_rr.audit_mechanism("krr", trials=10**5, params=mpc_rr.MechanismParams(k=4))
    leak = mpc_rr.eavesdrop("full-mesh", parties=30)

Every call runs in this process on the synchronous harness unless given a
runner: ``parties.runner_for("memory", workers=2)``, ``parties.runner_for("tcp")``
(or, for the attacks, ``scenarios.workloads.networks.network_for(...)``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mpc_rr.core import CostReport, Runner, UsageError
from mpc_rr.data import Dataset, Schema
from mpc_rr.privacy import Ledger
from mpc_rr.secure_sum import DEFAULT_SUM
from mpc_rr.workflows._tables import ErrorTable, PhaseEpsilons

if TYPE_CHECKING:
    from mpc_rr.workflows._pipeline import Evaluation, RunOptions
    from mpc_rr.workflows._run_results import RunResults

__all__ = ["AttackReport", "PipelineReport", "as_dataset", "coalition", "eavesdrop", "run_pipeline"]


def _columns_of(table: Any) -> dict[str, list[str]] | None:
    """The columns of a mapping of sequences or a DataFrame-like table (``columns`` + ``[name]``)."""
    if isinstance(table, Mapping):
        return {str(k): [str(v) for v in vals] for k, vals in table.items()}
    names = getattr(table, "columns", None)
    if names is None or not hasattr(table, "__getitem__"):
        return None
    out = {}
    for name in list(names):
        col = table[name]
        values = col.tolist() if hasattr(col, "tolist") else list(col)
        out[str(name)] = [str(v) for v in values]
    return out


def as_dataset(
    table: Any,
    *,
    name: str | None = None,
    schema: Schema | str | Path | None = None,
    columns: Sequence[str] | None = None,
    ordinal: Sequence[str] = (),
) -> Dataset:
    """Records to run a protocol on, from what a researcher holds.

    ``table``: a :class:`~mpc_rr.data.Dataset`; ``"adult"`` (the shipped UCI
    Adult); a CSV file's path; or a table in memory -- a mapping of column
    name to values, or a DataFrame-like object (pandas, polars: ``columns``
    and ``table[name]``).  Every value is a category (as a string).  Without
    ``schema`` (a :class:`~mpc_rr.data.Schema` or a TOML schema file) the
    schema is inferred: ``columns`` keeps those columns, in that order;
    ``ordinal`` names the ordered ones.
    """
    from mpc_rr.data import infer_schema, load_adult, load_csv, load_schema, read_csv_columns
    from mpc_rr.data._schema import encode_columns
    from mpc_rr.data._schema_io import schema_of_values

    if isinstance(table, Dataset):
        return table
    given = load_schema(schema) if isinstance(schema, str | Path) else schema
    if isinstance(table, str) and table == "adult":
        return load_adult()
    if isinstance(table, str | Path):
        path = Path(table)
        if given is None:
            given = infer_schema(read_csv_columns(path, columns), ordinal=ordinal)
        return load_csv(path, given, name=name or path.stem)
    cols = _columns_of(table)
    if cols is None:
        raise UsageError(
            f"as_dataset: expected a Dataset, 'adult', a CSV path, a mapping of columns or a "
            f"DataFrame-like table, got {type(table).__name__}"
        )
    if columns is not None:
        missing = [c for c in columns if c not in cols]
        if missing:
            raise UsageError(f"as_dataset: columns {missing} are not in the table ({list(cols)})")
        cols = {c: cols[c] for c in columns}
    if given is None:
        given = schema_of_values(tuple(cols), list(cols.values()), ordinal=ordinal, where=name or "table")
    return encode_columns(cols, given, name=name or "table")


@dataclass(frozen=True)
class PipelineReport:
    """One run of the distributed pipeline, evaluated: typed fields, ``results`` (every field of
    ``results.json``, typed) and ``document`` (``results.json`` itself, derived from ``results``)."""

    dataset: str
    parties: int  # data parties in the run
    clusters: tuple[tuple[str, ...], ...]  # the attribute clusters the coordinator broadcast, by name
    epsilon: PhaseEpsilons  # local epsilon per phase and in total
    relative_error: ErrorTable  # median relative error of count queries, per method and coverage
    ledger: Ledger  # each phase's local epsilon, what its channel licenses, and the assumptions
    cost: CostReport  # messages, bytes, rounds and time, per party and role
    warnings: tuple[str, ...]  # what a reader of the numbers must know (as ``mpc-rr run`` prints)
    results: RunResults = field(repr=False)  # everything results.json holds, typed
    evaluation: Evaluation = field(repr=False)  # everything the run and its evaluation computed

    @property
    def document(self) -> dict[str, Any]:
        """``results.json``: :meth:`RunResults.to_json` of :attr:`results`."""
        return self.results.to_json()

    @classmethod
    def of(cls, ev: Evaluation, opts: RunOptions) -> PipelineReport:
        """The report of evaluation ``ev`` of a run with options ``opts``."""
        from mpc_rr.workflows._run_results import run_results

        r = run_results(ev, opts)
        return cls(
            dataset=r.dataset, parties=r.parties, clusters=r.clusters, epsilon=r.epsilon,
            relative_error=r.relative_error, ledger=r.privacy.ledger, cost=r.cost,
            warnings=r.warnings, results=r, evaluation=ev,
        )  # fmt: skip


def run_pipeline(
    data: Any,
    *,
    parties: int | None = None,
    p: float = 0.7,
    tv: int = 100,
    td: float = 0.1,
    dependence: str = "rr",
    mechanism: str = "cluster",
    estimator: str = "clip",
    adjust_iterations: int = 50,
    seed: int = 1,
    queries: int = 200,
    max_dropout: float | None = None,
    max_corrupt: float | None = None,
    secagg_degree: int | None = None,
    secagg_failure: float | None = None,
    sum: str = DEFAULT_SUM,  # the dependence sum protocol (its name in results.json and scenarios)
    sum_options: Mapping[str, Any] | None = None,
    audit_trials: int = 0,
    dp_epsilon: float | None = None,
    dp_delta: float = 1e-6,
    options: RunOptions | None = None,
    runner: Runner | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    name: str | None = None,
    schema: Schema | str | Path | None = None,
    columns: Sequence[str] | None = None,
    ordinal: Sequence[str] = (),
) -> PipelineReport:
    """The distributed RR-Clusters pipeline on ``data`` (anything :func:`as_dataset` takes).

    The dependence phase (``dependence``: ``rr``, Sec. 4.1; ``secure-sum``, exact bivariate
    counts, Sec. 4.2, summed with ``sum``; ``pairwise-rr``, Sec. 4.3), the signed clustering
    broadcast (Algorithm 1 with thresholds ``tv`` on the cluster's domain size and ``td`` on
    the dependence), the clustered release (``mechanism``: ``cluster`` k-RR keeping each
    value with probability ``p``, ``lambda``, ``optimized``), then estimation (``estimator``:
    ``clip``, ``project``, ``ibu``), RR-Adjustment (``adjust_iterations`` passes) and the
    count-query errors (``queries`` per coverage) against the true records, as ``mpc-rr run``.
    ``parties``: a seeded subsample of the records (``None``: every record). ``sum_options``:
    the options of the ``sum`` protocol, validated by its options struct (any protocol's;
    ``max_dropout``, ``max_corrupt``, ``secagg_degree``, ``secagg_failure`` are SecAgg+'s
    bounds as keywords of their own, docs/secure_aggregation.md). ``audit_trials`` > 0
    audits each phase of the ledger after the run. ``dp_epsilon``, ``dp_delta``: a
    secure-sum dependence with distributed Skellam noise inside the sum, calibrated so the
    honest survivors' noise alone gives the phase that central (epsilon, delta)
    (docs/privacy.md). ``options``: all of these at once, as a
    :class:`~mpc_rr.workflows.RunOptions` (the keywords are then not allowed). ``runner``:
    how the roles run (default: the
    synchronous harness in this process).
    """
    from dataclasses import fields

    from mpc_rr.core import HarnessRunner
    from mpc_rr.workflows._pipeline import RunOptions, evaluate, execute

    given = {
        "parties": parties, "p": p, "tv": tv, "td": td, "dependence": dependence,
        "mechanism": mechanism, "estimator": estimator, "adjust_iterations": adjust_iterations,
        "seed": seed, "queries": queries, "max_dropout": max_dropout, "max_corrupt": max_corrupt,
        "secagg_degree": secagg_degree, "secagg_failure": secagg_failure, "sum": sum,
        "sum_options": sum_options, "audit_trials": audit_trials, "dp_epsilon": dp_epsilon,
        "dp_delta": dp_delta,
    }  # fmt: skip
    if options is not None:
        defaults = {f.name: f.default for f in fields(RunOptions)}
        changed = sorted(k for k, v in given.items() if v != defaults[k])
        if changed:
            raise UsageError(f"run_pipeline: give either options= or keywords, not both ({', '.join(changed)})")
        opts = options
    else:
        opts = RunOptions(**given)  # type: ignore[arg-type]
    ds = as_dataset(data, name=name, schema=schema, columns=columns, ordinal=ordinal)
    ev = evaluate(execute(opts, runner or HarnessRunner(roundtrip=False), ds, progress=progress), opts)
    return PipelineReport.of(ev, opts)



@dataclass(frozen=True)
class AttackReport:
    """What an attack learned: its success against the baseline, and the whole report."""

    success: float | None
    baseline: float | None
    ci: tuple[float, float] | None
    document: Mapping[str, Any]


def _attack(doc: Mapping[str, Any]) -> AttackReport:
    ci = doc.get("ci")
    return AttackReport(doc.get("success"), doc.get("baseline"), None if ci is None else (ci[0], ci[1]), doc)


def eavesdrop(
    protocol: str,
    *,
    network: Any = None,
    seed: int = 1,
    permutations: int = 200,
    confidence: float = 0.95,
    **run_options: Any,
) -> AttackReport:
    """What a wire observer learns from one run of ``protocol`` (``mpc-rr attack eavesdrop``).

    ``run_options`` are :func:`~mpc_rr.workflows.observed_run`'s (``parties``,
    ``cells``, ``p``, ``options``, ...); ``network`` its observed network
    (default: the harness, whose transcript a relay would read).
    """
    from mpc_rr.workflows._attack_reports import eavesdrop_report
    from mpc_rr.workflows._observed import observed_run

    run = observed_run(protocol, network=network, seed=seed, **run_options)
    doc = eavesdrop_report(run, np.random.default_rng(seed + 1), permutations=permutations,
                           confidence=confidence)  # fmt: skip
    return _attack(doc)


def coalition(protocol: str, *, parties: int, size: int, **options: Any) -> AttackReport:
    """``size`` colluding parties (plus the server where it colludes) against every honest input
    (``mpc-rr attack coalition``); ``options`` are :func:`~mpc_rr.workflows.coalition_report`'s."""
    from mpc_rr.workflows._attack_reports import coalition_report

    return _attack(coalition_report(protocol, parties=parties, size=size, **options).to_json())
