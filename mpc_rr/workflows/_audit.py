"""Audits by name: the mechanism to audit, the epsilon its source claims, and the whole audit.

:func:`build_mechanism` turns a name (:data:`AUDIT_MECHANISMS`) and its
parameters (:class:`MechanismParams`) into a :class:`Built` mechanism with the
epsilon its source claims; :func:`audit_mechanism` audits it (Clopper-Pearson
lower bound, with the naive design and LDP-Auditor's formula beside it, the
curve against the number of trials, the one-run audit) and
:func:`audit_pipeline` audits the real pipeline roles end to end.  Both
return the document ``mpc-rr audit --json`` prints.

``rrba`` is the RRBA client at the table it was sent, audited on the
smallest cell of the table (the client's answer function, the one the RRBA
client role calls); ``pipeline`` is every party's output end to end
(dependence phase + release, composed), audited with the one-run design over
one run of the real pipeline roles.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from mpc_rr.core import UsageError

if TYPE_CHECKING:
    from mpc_rr.adversary._designs import GuessingTest
    from mpc_rr.data import Dataset

__all__ = [
    "AUDIT_MECHANISMS",
    "AuditReport",
    "Built",
    "MechanismParams",
    "audit_mechanism",
    "audit_pipeline",
    "build_mechanism",
    "curve_points",
    "rrba_sent_table",
]


@dataclass(frozen=True)
class MechanismParams:
    """The parameters of every auditable mechanism (each builder reads its own).

    ``sizes``: ``None`` gives each mechanism its default (cluster ``(9, 16)``,
    lambda and optimized ``(5, 5, 5)``, pipeline ``(2, 2, 2)``); ``p``: ``None``
    gives 0.5 (pipeline: 0.3).
    """

    k: int = 2
    epsilon: float = 1.0
    size: int = 2
    p: float | None = None
    sizes: tuple[int, ...] | None = None
    lambdas: tuple[float, ...] = (0.6, 0.7, 0.4)
    eps: tuple[float, ...] = (2.0, 3.0, 4.0)
    method: str = "lp"
    table: tuple[float, ...] | None = None
    data: str | Dataset = "survey"
    clients: int = 2500
    block: int = 250
    subset: int | None = None
    seed: int = 0
    parties: int = 5000
    release: str = "cluster"

    def keep(self, mechanism: str) -> float:
        return (0.3 if mechanism == "pipeline" else 0.5) if self.p is None else self.p

    def sizes_of(self, mechanism: str) -> tuple[int, ...]:
        if self.sizes is not None:
            return tuple(self.sizes)
        return {"cluster": (9, 16), "pipeline": (2, 2, 2)}.get(mechanism, (5, 5, 5))


@dataclass(frozen=True)
class Built:
    """A mechanism to audit and the epsilon its source claims (and where the claim comes from).

    ``test(rng)``: the distinguishing test, when the structured default does
    not apply; ``compare(rng)``: a naive test whose bound is shown next to it.
    """

    mechanism: Any  # a JointMechanism, or RRBA's client at its table (randomize + epsilon)
    claimed: float
    claim_source: str
    label: str
    test: Callable[[np.random.Generator], GuessingTest] | None = None
    compare: Callable[[np.random.Generator], GuessingTest] | None = None
    compare_label: str = ""
    facts: tuple[tuple[str, str], ...] = ()


def _krr(a: MechanismParams) -> Built:
    from mpc_rr.mechanisms import k_rr

    m = k_rr(a.k, a.epsilon)
    return Built(m, a.epsilon, "requested epsilon", f"k-RR, k = {a.k}, epsilon = {a.epsilon:g}")


def _keep_uniform(a: MechanismParams) -> Built:
    from mpc_rr.mechanisms import keep_or_uniform, paper_epsilon

    p = a.keep("keep-uniform")
    m = keep_or_uniform(a.size, p)
    return Built(
        m, paper_epsilon(a.size, p), "paper Sec. 6.3.1: |ln(p|A|/(1-p))|",
        f"keep-or-uniform, |A| = {a.size}, p = {p:g}",
    )  # fmt: skip


def _cluster(a: MechanismParams) -> Built:
    from mpc_rr.mechanisms import cluster_matrix, keep_or_uniform

    p, sizes = a.keep("cluster"), list(a.sizes_of("cluster"))
    eps_c = math.fsum(keep_or_uniform(s, p).epsilon for s in sizes)
    m = cluster_matrix(sizes, eps_c)
    return Built(
        m, eps_c, "Sec. 6.3.2: sum of the attributes' epsilons",
        f"cluster matrix, sizes {tuple(sizes)}, p = {p:g} (epsilon_C = {eps_c:.4f})",
    )  # fmt: skip


def _lambda(a: MechanismParams) -> Built:
    from mpc_rr.mechanisms import LambdaRandomization

    sizes = list(a.sizes_of("lambda"))
    m = LambdaRandomization(sizes, list(a.lambdas))
    return Built(
        m, m.epsilon, "Ruiz: sum of ln(1 + λn/(1-λ))",
        f"λ-randomization, sizes {tuple(sizes)}, λ = {tuple(a.lambdas)}",
    )  # fmt: skip


def _optimized(a: MechanismParams) -> Built:
    from mpc_rr.mechanisms.optimized import optimize

    sizes = list(a.sizes_of("optimized"))
    m = optimize(sizes, list(a.eps), method=a.method, on_mismatch="reorder")
    return Built(
        m, m.overall_epsilon, f"solver ({m.method}) overall epsilon",
        f"privacy-optimized RR ({m.method}), sizes {tuple(sizes)}, eps {tuple(a.eps)}",
    )  # fmt: skip


def rrba_sent_table(
    data: str | Dataset, clients: int, block: int, p: float, seed: int, subset: int | None
) -> tuple[np.ndarray, str]:
    """The table an RRBA collection sends to its next block, and where it came from.

    Runs ``clients`` records of ``data`` (a name for :func:`mpc_rr.data.load_records`, or a
    :class:`~mpc_rr.data.Dataset` shuffled and cut the same way) block by block (pooled estimator,
    clip repair, no floor: the defaults of ``mpc-rr rrba``) and returns the
    table of ``subset`` that block ``clients / block + 1`` would be sent
    (default: the table with the smallest cell -- its clients leak most).
    """
    from mpc_rr.data import Dataset
    from mpc_rr.data._records import load_records
    from mpc_rr.rrba import run_rrba

    rng = np.random.default_rng(seed)
    if isinstance(data, Dataset):
        if clients > data.n:
            raise UsageError(f"--clients {clients} exceeds the {data.n} records of {data.name}")
        ds = Dataset(data.schema, data.codes[rng.permutation(data.n)[:clients]], data.name)
        source = f"{data.name} ({data.n:,} records)"
    else:
        ds, source = load_records(data, clients, rng)
    run = run_rrba(ds, p=p, block=block, seed=seed)
    tables = [np.asarray(t, dtype=float).reshape(-1) for t in run.estimates]
    s = int(np.argmin([t.min() for t in tables])) if subset is None else subset
    if not 0 <= s < len(tables):
        raise UsageError(f"--subset must be in 0..{len(tables) - 1}, got {subset}")
    names = "x".join(ds.schema.names[a] for a in run.cover.subsets[s])
    where = (
        f"table {s} ({names}) sent to block {run.blocks + 1} after {run.clients:,} clients of "
        f"{source}, B = {block}"
    )
    return tables[s] / tables[s].sum(), where


def _rrba(a: MechanismParams) -> Built:
    from mpc_rr.adversary._rrba_audit import (
        RRBAClientMechanism,
        smallest_cell_test,
        uniform_event_test,
    )

    p = a.keep("rrba")
    if a.table is not None:
        table, where = np.asarray(a.table, dtype=float), "table given with --table"
    else:
        table, where = rrba_sent_table(a.data, a.clients, a.block, p, a.seed, a.subset)
    m = RRBAClientMechanism(table, p)
    t_min = float(m.table.min())
    return Built(
        m, m.paper_epsilon, "paper Theorem 4.1 / Eq. 6: ln(1/(1-p))",
        f"RRBA client, p = {p:g}, {m.table.size} cells, smallest T = {t_min:.4g}",
        test=lambda rng: smallest_cell_test(m),
        compare=lambda rng: uniform_event_test(m, rng),
        compare_label="event drawn uniformly among the cells",
        facts=(("table", where), ("T", ", ".join(f"{v:.4g}" for v in m.table[:16]))),
    )  # fmt: skip


_BUILDERS: dict[str, Callable[[MechanismParams], Built]] = {
    "krr": _krr,
    "keep-uniform": _keep_uniform,
    "cluster": _cluster,
    "lambda": _lambda,
    "optimized": _optimized,
    "rrba": _rrba,
}

AUDIT_MECHANISMS: tuple[str, ...] = (*_BUILDERS, "pipeline", "shuffle")
"""What ``mpc-rr audit --mechanism`` takes (``pipeline`` runs the real roles: :func:`audit_pipeline`)."""


def build_mechanism(name: str, params: MechanismParams | None = None) -> Built:
    """The mechanism ``name`` with ``params`` and the epsilon its source claims."""
    builder = _BUILDERS.get(name)
    if builder is None:
        raise UsageError(f"mechanism must be one of {list(_BUILDERS)}, got {name!r}")
    return builder(params if params is not None else MechanismParams())


def curve_points(trials: int) -> list[int]:
    """Trial counts of the curve of the bound against the number of trials (log spaced)."""
    pts = [int(v) for v in np.unique(np.geomspace(100, trials, num=7).round()) if v >= 100]
    return sorted(set(pts) | {trials}) if trials >= 100 else [trials]


@dataclass(frozen=True)
class AuditReport:
    """One audit, typed: the result, the claim it was checked against, the curve of the bound
    against the trials, and (mechanisms) the mechanism's facts, the naive test's result with its
    ``naive_design``, the one-run audit; :attr:`document` is the JSON ``mpc-rr audit --json``
    prints, derived from these fields.  ``pipeline``: the one-run audit of the pipeline's roles
    (:func:`audit_pipeline`), whose document also states the claim's verdict and the design."""

    label: str
    claimed: float
    claim_source: str
    result: Any  # AuditResult, or PipelineAuditResult for the pipeline
    curve: tuple[Mapping[str, float], ...] = ()
    facts: tuple[tuple[str, str], ...] = ()
    naive: Any = None
    one_run: Any = None
    naive_design: str | None = None
    pipeline: bool = False
    has_curve: bool = False  # the curve was asked for (its key is in the document)

    @property
    def document(self) -> dict[str, Any]:
        """The JSON ``mpc-rr audit --json`` prints."""
        out: dict[str, Any] = self.result.to_dict() | {"label": self.label, "claim_source": self.claim_source}
        if self.pipeline:
            out |= {"epsilon_claimed": self.claimed, "violation": self.result.epsilon_lower > self.claimed,
                    "design": "one run (Steinke et al. 2023)"}  # fmt: skip
        out.update(dict(self.facts))
        if self.naive is not None:
            out["naive"] = self.naive.to_dict() | {"design": self.naive_design}
        if self.has_curve:
            out["curve"] = [dict(c) for c in self.curve]
        if self.one_run is not None:
            out["one_run"] = self.one_run.to_dict()
        return out


def audit_mechanism(
    name: str,
    *,
    trials: int = 1_000_000,
    confidence: float = 0.95,
    seed: int = 0,
    claimed: float | None = None,
    black_box: bool = False,
    one_run: bool = False,
    curve: bool = True,
    params: MechanismParams | None = None,
) -> AuditReport:
    """Audit mechanism ``name`` (not ``pipeline``: :func:`audit_pipeline`).

    ``trials`` black-box runs on the structured (or, ``black_box``, searched)
    distinguishing test give a Clopper-Pearson lower bound at ``confidence``,
    checked against ``claimed`` (default: the epsilon the mechanism's source
    claims).  ``curve``: the bound against the number of trials, with
    LDP-Auditor's formula on the same runs; ``one_run``: also Steinke et al.'s
    one-run audit.  Every draw comes from ``default_rng(seed)``.
    """
    from mpc_rr.adversary import AuditResult, audit, one_run_audit
    from mpc_rr.adversary._audit import ldp_auditor_audit
    from mpc_rr.adversary._designs import structured_test

    built = build_mechanism(name, params)
    claim = built.claimed if claimed is None else claimed
    source = built.claim_source if claimed is None else "--claimed-epsilon"
    rng = np.random.default_rng(seed)
    mech = built.mechanism
    given = built.test(rng) if built.test is not None and not black_box else None
    res = audit(mech, trials, rng, confidence=confidence, claimed=claim, black_box=black_box, test=given)
    if black_box:  # the auditor did not use it, but the report may show it
        res = AuditResult(**{**res.__dict__, "epsilon_true": float(mech.epsilon)})
    naive = None
    if built.compare is not None:
        naive = audit(mech, trials, rng, confidence=confidence, claimed=claim, test=built.compare(rng))
    points: list[dict[str, float]] = []
    if curve:
        test = given if given is not None else structured_test(mech)
        for n in curve_points(trials):
            r = audit(mech, n, rng, confidence=confidence, test=test)
            theirs = ldp_auditor_audit(  # same runs, same confidence: alpha/2 = 1 - confidence
                mech, max(n // 2, 1), rng, test=test, alpha=2 * (1 - confidence)
            )
            points.append({"trials": n, "epsilon_lower": r.epsilon_lower, "ldp_auditor": max(theirs, 0.0)})
    one = None
    if one_run:
        one = one_run_audit(mech, trials, rng, confidence=confidence, claimed=claim, test=given)
    return AuditReport(built.label, claim, source, res, tuple(points), built.facts, naive, one,
                       naive_design=built.compare_label, has_curve=curve)  # fmt: skip


def audit_pipeline(
    *,
    sizes: Sequence[int] = (2, 2, 2),
    parties: int = 5000,
    p: float = 0.3,
    release: str = "cluster",
    confidence: float = 0.95,
    seed: int = 0,
    claimed: float | None = None,
    curve: bool = True,
) -> AuditReport:
    """One-run audit of the real pipeline roles: every party's output end to end (dependence
    ``rr`` + the ``release`` mechanism, composed), ``parties`` canary parties."""
    from mpc_rr.adversary import pipeline_audit

    if parties < 2:
        raise UsageError(f"--parties must be an integer >= 2, got {parties}")
    rng = np.random.default_rng(seed)
    res = pipeline_audit(list(sizes), parties, rng, p=p, mechanism=release, confidence=confidence)
    own = res.epsilon_claimed if res.epsilon_claimed is not None else math.inf  # always set here
    claim = own if claimed is None else float(claimed)
    source = "the pipeline's accounting (dependence + release)" if claimed is None else "--claimed-epsilon"
    label = (
        f"pipeline per-party output (dependence rr + {release} release), sizes "
        f"{tuple(res.sizes)}, p = {p:g}"
    )
    points: list[dict[str, float]] = []
    if curve:
        pts = sorted({int(v) for v in np.geomspace(min(250, parties), parties, 4).round()})
        for n in pts:
            r = res if n == parties else pipeline_audit(
                list(sizes), n, rng, p=p, mechanism=release, confidence=confidence
            )
            points.append({"trials": n, "epsilon_lower": r.epsilon_lower, "guesses": r.guesses})
    return AuditReport(label, claim, source, res, tuple(points), pipeline=True, has_curve=curve)
