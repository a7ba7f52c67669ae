"""What one RRBA collection reports, as frozen typed records: ``results.json`` is derived from them.

:func:`rrba_results` turns a collection (:class:`~mpc_rr.rrba.RRBARun`, its
marginal errors and, when distributed, the runner's
:class:`~mpc_rr.core.CostReport`) into an :class:`RRBAResults`;
:meth:`RRBAResults.to_json` is ``results.json`` of ``mpc-rr rrba`` (and the
scenario kind's document).  Its warnings (:func:`rrba_warnings`) are part of it.

``privacy``: the ledger (docs/privacy.md) -- answers sent directly amplify
nothing; a secure tally reveals only each block's histogram per table (shuffle
amplification), under the tally's assumption.  ``validity``: what each phase
proves of a client's answer.  Cost: the protocol-level counts every run knows
exactly; a distributed run adds what the runner measured, the centralized
engine sends no message (those keys are ``null``, never estimated).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from mpc_rr.core import CostReport
from mpc_rr.data import Dataset
from mpc_rr.rrba import RRBARun, epsilon_cap
from mpc_rr.secure_sum import DEFAULT_SUM
from mpc_rr.secure_sum._family import given_options, sum_options_json
from mpc_rr.workflows._privacy import (
    ledger_curve,
    rrba_crowds,
    rrba_ledger,
    rrba_noise_central,
    sum_channel,
)
from mpc_rr.workflows._run_results import PrivacyRecord
from mpc_rr.workflows._validity import rrba_validity

__all__ = [
    "MarginalError",
    "RRBACost",
    "RRBAResults",
    "RRBASeconds",
    "SubsetResult",
    "TallyRecord",
    "rrba_results",
    "rrba_warnings",
]


@dataclass(frozen=True)
class SubsetResult:
    """One attribute subset of the cover: its table's cells, the answers and blocks it got, where
    the stopping rule first held (``None``: never), its error and its worst table's epsilon
    (``None``: infinite), and its estimate and truth (flattened, 6 decimals)."""

    attributes: tuple[str, ...]
    cells: int
    answers: int
    blocks: int
    first_held_block: int | None
    converged: bool
    held_at_last_block: bool
    max_abs_error: float
    epsilon_true_max: float | None
    estimate: tuple[float, ...]
    truth: tuple[float, ...]

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        return {**d, "attributes": list(self.attributes), "estimate": list(self.estimate), "truth": list(self.truth)}


@dataclass(frozen=True)
class MarginalError:
    """One order's marginals against the truth (:func:`~mpc_rr.workflows.marginal_errors`): l2 on
    counts and Jensen-Shannon in bits, mean and max over ``tables`` sets (``skipped``: sets whose
    consistency QP would exceed ``max_rows``)."""

    tables: int
    skipped: int
    max_rows: int
    method: str
    l2_mean: float
    l2_max: float
    js_mean: float
    js_max: float
    view_inconsistency_mean: float
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class RRBACost:
    """What the collection cost: answers, tables and table cells sent (every run knows them), the
    dropouts, late messages ignored, and (``costs``) what the runner measured when distributed."""

    answers: int
    tables_sent: int
    table_cells_sent: int
    dropouts: Mapping[str, int]
    late: int
    costs: CostReport | None

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "answers": self.answers, "tables_sent": self.tables_sent,
            "table_cells_sent": self.table_cells_sent, "dropouts": dict(self.dropouts), "late": self.late,
        }  # fmt: skip
        c = self.costs
        if c is None:
            return {
                **doc, "transport": None, "messages": None, "bytes": None, "rounds": None,
                "wall_s": None, "aggregator": None, "clients": None,
                "note": "centralized engine: no messages are sent (use --transport harness|memory|tcp)",
            }  # fmt: skip
        return {
            **doc, "transport": c.transport, "messages": c.messages, "bytes": c.bytes, "rounds": c.rounds,
            "wall_s": c.wall_s, "aggregator": c.coordinator(),
            "clients": {"count": len(c.parties) - 1, **c.data_parties()}, "peer_errors": c.peer_errors,
            **c.extra,
        }  # fmt: skip


@dataclass(frozen=True)
class TallyRecord:
    """The secure tally's sum protocol and its options."""

    protocol: str
    options: Mapping[str, Any]
    dp_epsilon: float | None = None
    dp_delta: float = 1e-6

    def to_json(self) -> dict[str, Any]:
        noise = {} if self.dp_epsilon is None else {"dp_epsilon": self.dp_epsilon, "dp_delta": self.dp_delta}
        return {"protocol": self.protocol, "options": self.options, **noise}


@dataclass(frozen=True)
class RRBASeconds:
    """Wall seconds of the collection and of the marginal evaluation."""

    collection: float
    marginals: float


@dataclass(frozen=True)
class RRBAResults:
    """One RRBA collection (Imran & Meo), typed: the fields of ``results.json`` (:meth:`to_json`).

    ``epsilon_true``: the worst client's epsilon, its view's subsets composed (``None``:
    infinite, a table sent had a zero cell); ``epsilon_paper``: ``ln(1/(1-p))`` per answer
    (``epsilon_paper_view`` per view); ``epsilon_cap_per_subset``: the cap the t-floor sets.
    ``seconds`` and ``network`` are set by the caller that timed and priced the run.
    """

    data: str
    attributes: tuple[str, ...]
    clients: int
    blocks: int
    views: int
    subsets_total: int
    options: Mapping[str, Any]
    converged: bool
    converged_subsets: int
    epsilon_true: float | None
    epsilon_true_is_infinite: bool
    epsilon_paper: float | None
    epsilon_paper_view: float | None
    epsilon_cap_per_subset: float | None
    marginals: Mapping[str, MarginalError]
    cost: RRBACost
    subsets: tuple[SubsetResult, ...]
    privacy: PrivacyRecord
    validity: tuple[Mapping[str, Any], ...]
    sum: TallyRecord | None
    seconds: RRBASeconds | None = None
    network: Mapping[str, Any] | None = None
    warnings: tuple[str, ...] = ()

    def timed(self, seconds: RRBASeconds, network: Mapping[str, Any] | None = None) -> RRBAResults:
        """The same results with the wall times and the priced network's summary (``--network``)."""
        return replace(self, seconds=seconds, network=network)

    def to_json(self) -> dict[str, Any]:
        """The content of ``results.json``."""
        doc: dict[str, Any] = {
            "data": self.data,
            "attributes": list(self.attributes),
            "clients": self.clients,
            "blocks": self.blocks,
            "views": self.views,
            "subsets_total": self.subsets_total,
            "options": dict(self.options),
            "converged": self.converged,
            "converged_subsets": self.converged_subsets,
            "epsilon_true": self.epsilon_true,
            "epsilon_true_is_infinite": self.epsilon_true_is_infinite,
            "epsilon_paper": self.epsilon_paper,
            "epsilon_paper_view": self.epsilon_paper_view,
            "epsilon_cap_per_subset": self.epsilon_cap_per_subset,
            "l2": {m: v.l2_mean for m, v in self.marginals.items()},
            "js": {m: v.js_mean for m, v in self.marginals.items()},
            "marginals": {m: v.to_json() for m, v in self.marginals.items()},
            "cost": self.cost.to_json(),
            "subsets": [s.to_json() for s in self.subsets],
            "privacy": self.privacy.to_json(),
            "validity": [dict(v) for v in self.validity],
            "sum": None if self.sum is None else self.sum.to_json(),
        }
        if self.seconds is not None:
            doc["seconds"] = asdict(self.seconds)
        if self.network is not None:
            doc["network"] = self.network
        doc["warnings"] = list(self.warnings)
        return doc


def _finite(x: float) -> float | None:
    return None if math.isinf(x) or math.isnan(x) else float(x)


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


def _privacy(run: RRBARun, view_len: int, secure_tally: bool, sum_protocol: str,
             sum_options: Mapping[str, Any] | None, noisy: Any) -> PrivacyRecord:  # fmt: skip
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
    return PrivacyRecord(ledger, tuple(ledger.lines()), ledger_curve(ledger, specs))


def rrba_results(
    run: RRBARun,
    data: Dataset,
    source: str,
    marginals: Mapping[str, Mapping[str, Any]],
    costs: CostReport | None = None,
    *,
    secure_tally: bool = False,
    sum_protocol: str = DEFAULT_SUM,
    sum_options: Mapping[str, Any] | None = None,
    dp_epsilon: float | None = None,
    dp_delta: float = 1e-6,
) -> RRBAResults:
    """The typed report of one collection: ``run`` over ``data`` (described by ``source``), its
    ``marginals`` (:func:`~mpc_rr.workflows.marginal_errors`), the runner's ``costs`` of a
    distributed run, and the secure tally's ``sum_protocol`` with ``sum_options`` (its
    assumption enters the ledger: who must be honest); ``dp_epsilon``, ``dp_delta``: the secure
    tally's distributed noise (the ledger then states the tally's central figure,
    :func:`~mpc_rr.workflows._privacy.rrba_noise_central`)."""
    names = data.schema.names
    last = run.held[-1] if run.held.size else np.zeros(len(run.cover.subsets), bool)
    subsets = []
    for s, sub in enumerate(run.cover.subsets):
        est, tru = run.estimates[s], run.truth[s]
        subsets.append(SubsetResult(
            attributes=tuple(names[a] for a in sub), cells=int(est.size), answers=int(run.answers[s]),
            blocks=int(run.blocks_used[s]), first_held_block=int(run.first_held[s]) or None,
            converged=bool(run.converged[s]), held_at_last_block=bool(last[s]),
            max_abs_error=float(np.abs(est - tru).max()),
            epsilon_true_max=_finite(float(run.epsilon_table_max[s])),
            estimate=tuple(est.reshape(-1).round(6).tolist()), truth=tuple(tru.reshape(-1).round(6).tolist()),
        ))  # fmt: skip
    cells_sent = int((run.sent * np.asarray(run.index.layout.cells)).sum())
    eps_true = run.epsilon_true
    floor = float(run.options["t_floor"])  # type: ignore[arg-type]
    view_len = max(len(v) for v in run.cover.views)
    noisy = _noisy_config(run, sum_protocol, sum_options, dp_epsilon, dp_delta) if secure_tally else None
    cost = RRBACost(int(run.answers.sum()), int(run.sent.sum()), cells_sent, run.dropouts(), run.late, costs)
    base = RRBAResults(
        data=source,
        attributes=tuple(names),
        clients=run.clients,
        blocks=run.blocks,
        views=run.cover.n_views,
        subsets_total=len(run.cover.subsets),
        options={"p": run.p, **run.options},
        converged=bool(run.converged.all()),
        converged_subsets=int(run.converged.sum()),
        epsilon_true=_finite(eps_true),
        epsilon_true_is_infinite=math.isinf(eps_true),
        epsilon_paper=_finite(run.epsilon_paper),
        epsilon_paper_view=_finite(run.epsilon_paper * view_len),
        epsilon_cap_per_subset=_finite(epsilon_cap(floor, run.p)),
        marginals={m: MarginalError(**v) for m, v in marginals.items()},
        cost=cost,
        subsets=tuple(subsets),
        privacy=_privacy(run, view_len, secure_tally, sum_protocol, sum_options, noisy),
        validity=tuple(rrba_validity(run, secure_tally, sum_protocol, sum_options,
                                     noisy=None if noisy is None else noisy.tally_public(1))),
        sum=TallyRecord(sum_protocol, sum_options_json(sum_protocol, sum_options), dp_epsilon, dp_delta)
        if secure_tally else None,
    )
    return replace(base, warnings=tuple(rrba_warnings(base)))


def rrba_warnings(r: RRBAResults) -> list[str]:
    """What a reader of the numbers must know (printed whatever the format, kept in results.json):
    an infinite true epsilon, subsets with too few answers per cell, marginal errors that are nan."""
    out = []
    if r.epsilon_true_is_infinite:
        out.append("a table sent had a zero cell, so the true epsilon is infinite (an answer in that "
                   "cell can only be the truth); --t-floor keeps every cell above a floor")  # fmt: skip
    thin = [s for s in r.subsets if s.answers < 5 * s.cells]
    if thin:
        worst = min(thin, key=lambda s: s.answers / s.cells)
        out.append(f"tiny sample: {len(thin)} of {len(r.subsets)} subsets got fewer than 5 answers "
                   f"per cell (worst: {','.join(worst.attributes)}, {worst.answers} answers for "
                   f"{worst.cells} cells); their estimates are mostly noise")  # fmt: skip
    bad = [f"{m}-way" for m, v in r.marginals.items() if math.isnan(v.l2_mean) or math.isnan(v.js_mean)]
    if bad:
        out.append(f"marginal errors are nan for {', '.join(bad)}")
    return out
