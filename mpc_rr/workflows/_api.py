"""The researcher's entry points: one call per job, a frozen report back.

::

    import mpc_rr

    report = mpc_rr.run_pipeline("adult", parties=5000, p=0.7, dependence="secure-sum")
    report.clusters, report.relative_error["RR-Clusters+Adjustment"], report.epsilon

    sums = mpc_rr.run_secure_sum("secagg", inputs)             # any registered sum protocol
    audit = mpc_rr.audit_mechanism("krr", trials=10**5, params=mpc_rr.MechanismParams(k=4))
    leak = mpc_rr.eavesdrop("full-mesh", parties=30)

Every call runs in this process on the synchronous harness unless given a
runner: ``parties.runner_for("memory", workers=2)``, ``parties.runner_for("tcp")``
(or, for the attacks, ``scenarios.workloads.networks.network_for(...)``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mpc_rr.core import Runner, UsageError
from mpc_rr.data import Dataset, Schema

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
    from mpc_rr.data import (
        encode_columns,
        infer_schema,
        load_adult,
        load_csv,
        load_schema,
        read_csv_columns,
        schema_of_values,
    )

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
    """One run of the distributed pipeline, evaluated (``document`` is ``results.json``)."""

    document: Mapping[str, Any]
    evaluation: Any  # mpc_rr.workflows.Evaluation

    @property
    def clusters(self) -> list[list[str]]:
        """The attribute clusters the coordinator broadcast, by name."""
        return [list(c) for c in self.document["clusters"]]

    @property
    def relative_error(self) -> Mapping[str, Mapping[str, float]]:
        """Median relative error of count queries: method -> query coverage -> error."""
        errors: Mapping[str, Mapping[str, float]] = self.document["relative_error"]
        return errors

    @property
    def epsilon(self) -> Mapping[str, float | None]:
        """Per-party epsilon of each phase and in total (``None``: infinite)."""
        eps: Mapping[str, float | None] = self.document["epsilon"]
        return eps

    @property
    def cost(self) -> Mapping[str, Any]:
        """Messages, bytes, rounds and time, per role."""
        cost: Mapping[str, Any] = self.document["cost"]
        return cost


def run_pipeline(
    data: Any,
    *,
    runner: Runner | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    name: str | None = None,
    schema: Schema | str | Path | None = None,
    columns: Sequence[str] | None = None,
    ordinal: Sequence[str] = (),
    **options: Any,
) -> PipelineReport:
    """The distributed RR-Clusters pipeline on ``data`` (anything :func:`as_dataset` takes).

    ``options`` are :class:`~mpc_rr.workflows.RunOptions`' (``parties``, ``p``,
    ``tv``, ``td``, ``dependence``, ``mechanism``, ``estimator``, ``seed``,
    ``sum``, ...): the dependence phase, the signed clustering broadcast, the
    clustered release, then estimation, RR-Adjustment and the count-query
    errors against the true records (``mpc-rr run``).
    """
    from mpc_rr.core import HarnessRunner
    from mpc_rr.workflows._pipeline import RunOptions, evaluate, execute, to_json

    ds = as_dataset(data, name=name, schema=schema, columns=columns, ordinal=ordinal)
    opts = RunOptions(**options)
    ev = evaluate(execute(opts, runner or HarnessRunner(roundtrip=False), ds, progress=progress), opts)
    return PipelineReport(to_json(ev, opts), ev)


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

    doc = dict(coalition_report(protocol, parties=parties, size=size, **options))
    doc.pop("head", None)
    return _attack(doc)
