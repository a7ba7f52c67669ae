"""Can a curious aggregator regroup a party's pairwise-RR submissions? (Sec. 4.3, docs/adversary.md, linkability)

Domingo-Ferrer & Soria-Comas, Sec. 4.3: each party randomizes each of its
``m(m-1)/2`` attribute pairs and submits them so that "masked pairs
corresponding to the same party [are] unlinkable between them"; that is what
licenses parallel instead of sequential composition.  We release the same
pairwise-RR reports (the project's pair mechanisms) over three channels and
let the aggregator try to regroup them:

* ``direct`` -- every report arrives over its sender's authenticated
  connection: grouping by sender is exact;
* ``anonymous`` -- one message per pair report, no sender, a perfect mix
  (uniformly shuffled): the aggregator sees the multiset of reports;
* ``secure-sum`` -- what the pipeline does: only the per-cell totals.  Note
  that the totals *are* that multiset (a histogram loses nothing a perfect
  mix keeps), so the attack below runs unchanged on them.

**The attack** (anonymous and secure-sum): likelihood matching of
overlapping pairs.  Reports ``(A, B)`` and ``(A, C)`` of one party carry
independent randomizations of the same true ``A``.  Groups start from the
reports of an anchor pair; pair types are added one at a time, each
overlapping attributes already in the groups; a group keeps, per attribute,
the log-likelihood of its evidence, and a new report's score for a group is
``log sum_ab q_g(a, b) M(y | a, b)`` with ``q_g`` the group's posterior over
the pair (pair prior estimated from the release by Eq. 2, times the group's
evidence).  Each step is a maximum-likelihood one-to-one assignment of the
``n`` reports to the ``n`` groups.  Scores depend on a report only through
its cell, so the ``n x n`` problem collapses exactly to an ``n x cells``
transportation problem (solved by network simplex, ``ot.emd`` of POT) --
``scipy.optimize.linear_sum_assignment`` on the expanded matrix is the
reference for small ``n``.  Optional ``sweeps`` re-assign each pair type
given all the others (iterated conditional modes; on Adult they changed the
success by less than its interval, so the default is 0).  No Python loop
runs over parties or pairs of parties.

**Metrics** (:func:`evaluate`), each against what guessing achieves:

* ``success``: an attacker holding one of party ``i``'s reports (its anchor
  report) takes the group that report is in; the share of ``i``'s other pair
  values that group holds.  Values, not message identities: a report equal
  to ``i``'s own tells the attacker the same.  Baseline: a random group,
  ``mean_i,t c_t(y_it) / n`` (``c_t`` = count of the value).
* ``fully_relinked``: the group holds all of ``i``'s values; baseline
  ``mean_i prod_t c_t(y_it) / n``.
* degree of anonymity ``d = H / log2 N`` (Diaz, Seys, Claessens & Preneel
  2002) and effective anonymity set ``2^H`` (Serjantov & Danezis 2002), where
  ``H`` is the entropy (bits) of the attacker's posterior over which of the
  ``N = n`` groups a report belongs to given all its group's other reports,
  averaged over reports.

Our attacker is one practical algorithm: its success is a *lower* bound on
what an aggregator can link.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from mpc_rr.adversary._channels import (
    CHANNELS,
    ChannelView,
    Pair,
    PairwiseRelease,
    expand_totals,
    observe,
    release_pairs,
)
from mpc_rr.adversary._stats import check_confidence, check_count, cp_two_sided, mean_ci
from mpc_rr.core import UsageError
from mpc_rr.estimation import estimate_distribution
from mpc_rr.mdrr import PairLayout
from mpc_rr.mechanisms import JointMechanism

__all__ = [
    "CHANNELS",
    "ChannelView",
    "Grouping",
    "LinkabilityResult",
    "LinkageRun",
    "PairModel",
    "PairwiseRelease",
    "attack",
    "attack_order",
    "evaluate",
    "expand_totals",
    "link",
    "observe",
    "party_groups",
    "release_pairs",
]

SOLVERS = ("transport", "assignment")
#: Largest n for the dense n x n reference solver.
ASSIGNMENT_MAX = 5000
_TINY = 1e-300
_PRIOR_FLOOR = 1e-6


def _dense(mech: JointMechanism) -> np.ndarray:
    for name in ("dense", "dense_matrix"):
        f = getattr(mech, name, None)
        if f is not None:
            return np.asarray(f(), dtype=float)
    raise UsageError(f"linkability needs the pair mechanisms' matrices; {mech!r} has none")


@dataclass(frozen=True, eq=False)
class PairModel:
    """The attacker's model of each pair: prior (Eq. 2 on the totals), matrix, evidence tables.

    ``evidence_i[t][a, y] = log sum_b pi_t(b | a) M_t[(a, b), y]`` is what a
    report ``y`` of pair ``t = (i, j)`` says about attribute ``i`` alone
    (``evidence_j`` likewise); ``log_prior[t]`` has shape ``(|A_i|, |A_j|)``.
    """

    sizes: tuple[int, ...]
    pairs: tuple[Pair, ...]
    log_prior: tuple[np.ndarray, ...]
    matrices: tuple[np.ndarray, ...]
    evidence_i: tuple[np.ndarray, ...]
    evidence_j: tuple[np.ndarray, ...]
    epsilons: tuple[float, ...]

    @classmethod
    def fit(cls, view: ChannelView, mechanisms: Sequence[JointMechanism]) -> PairModel:
        lp, mats, ei, ej = [], [], [], []
        for t, (i, j) in enumerate(view.pairs):
            a, b = view.sizes[i], view.sizes[j]
            counts = view.counts(t).reshape(a, b)
            est = estimate_distribution(mechanisms[t], counts, "project").distribution
            pi = np.maximum(np.asarray(est, dtype=float).reshape(a, b), _PRIOR_FLOOR)
            pi /= pi.sum()
            m = _dense(mechanisms[t])
            m3 = m.reshape(a, b, a * b)
            ei.append(np.log(np.einsum("ab,abk->ak", pi / pi.sum(1, keepdims=True), m3) + _TINY))
            ej.append(np.log(np.einsum("ab,abk->bk", pi / pi.sum(0, keepdims=True), m3) + _TINY))
            lp.append(np.log(pi))
            mats.append(m)
        eps = tuple(float(mm.epsilon) for mm in mechanisms)
        return cls(view.sizes, view.pairs, tuple(lp), tuple(mats), tuple(ei), tuple(ej), eps)

    def attribute_prior(self, attr: int) -> np.ndarray:
        """Marginal of ``attr`` from the first pair containing it."""
        for t, (i, j) in enumerate(self.pairs):
            if attr in (i, j):
                p = np.exp(self.log_prior[t])
                return np.asarray(p.sum(axis=1) if attr == i else p.sum(axis=0))
        raise UsageError(f"attribute {attr} is in no pair")


def attack_order(sizes: Sequence[int]) -> tuple[int, ...]:
    """Pair indices (layout order) in the order the attack adds them.

    Attributes sorted by size, largest first; the anchor pairs the two
    largest; then each new attribute ``c`` brings pairs ``(a, c)`` for every
    attribute ``a`` already placed, so each step overlaps the groups.
    """
    lay = PairLayout(tuple(int(s) for s in sizes))
    attrs = sorted(range(len(lay.sizes)), key=lambda a: (-lay.sizes[a], a))
    index = {p: t for t, p in enumerate(lay.pairs)}
    out = []
    for jj in range(1, len(attrs)):
        for ii in range(jj):
            a, b = sorted((attrs[ii], attrs[jj]))
            out.append(index[(a, b)])
    return tuple(out)


@dataclass(frozen=True, eq=False)
class Grouping:
    """The aggregator's regrouping.

    ``groups[t][e]``: group of element ``e`` of pair ``t`` (view order);
    ``values[g, t]``: the cell group ``g`` holds for pair ``t``;
    ``entropy_bits``: mean entropy of a report's posterior over the groups.
    """

    channel: str
    order: tuple[int, ...]
    groups: tuple[np.ndarray, ...]
    values: np.ndarray
    entropy_bits: float
    model: PairModel
    solver: str
    seconds: float

    @property
    def anchor(self) -> int:
        return self.order[0]


def _assign(scores: np.ndarray, counts: np.ndarray, solver: str) -> np.ndarray:
    """Cell held by each group in a max-likelihood one-to-one assignment of reports to groups."""
    used = np.flatnonzero(counts > 0)
    s = scores[:, used]
    n = scores.shape[0]
    if solver == "assignment":
        cols = np.repeat(np.arange(used.size), counts[used])
        _, c = linear_sum_assignment(s[:, cols], maximize=True)
        rows_sorted = np.empty(n, np.int64)
        rows_sorted[np.arange(n)] = cols[c]
        return used[rows_sorted]
    import ot  # POT: exact network simplex (imported here: it takes ~1 s)

    plan = ot.emd(
        np.ones(n), counts[used].astype(float), -(s - s.max()), numItermax=max(10**7, 50 * n * used.size)
    )
    return np.asarray(used[np.argmax(plan, axis=1)], dtype=np.int64)


def _place(cells: np.ndarray, held: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Elements with cell ``k`` go to the groups holding ``k``, in a random order (they are alike)."""
    n = cells.size
    e_order = np.lexsort((rng.random(size=n), cells))
    g_order = np.lexsort((rng.random(size=n), held))
    out = np.empty(n, np.int64)
    out[e_order] = g_order
    return out


def link(
    view: ChannelView,
    mechanisms: Sequence[JointMechanism],
    rng: np.random.Generator,
    *,
    sweeps: int = 0,
    solver: str = "transport",
) -> Grouping:
    """The curious aggregator's regrouping of a view (see the module docstring).

    Raises
    ------
    UsageError
        For an unknown solver, a negative ``sweeps``, or ``solver="assignment"``
        with more than :data:`ASSIGNMENT_MAX` parties.
    """
    start = time.perf_counter()
    if solver not in SOLVERS:
        raise UsageError(f"solver must be one of {SOLVERS}, got {solver!r}")
    sweeps = check_count(sweeps, "sweeps", 0)
    n, sizes, pairs = view.parties, view.sizes, view.pairs
    if len(mechanisms) != len(pairs):
        raise UsageError(f"need one mechanism per pair: {len(pairs)} pairs, got {len(mechanisms)}")
    model = PairModel.fit(view, mechanisms)
    order = attack_order(sizes)
    npairs = len(pairs)
    if view.channel == "direct":
        assert view.elements is not None and view.senders is not None
        values = np.empty((n, npairs), np.int64)
        for t in range(npairs):
            values[view.senders[t], t] = view.elements[t]
        groups = tuple(np.asarray(s, np.int64) for s in view.senders)
        return Grouping("direct", order, groups, values, 0.0, model, "sender", time.perf_counter() - start)
    if solver == "assignment" and n > ASSIGNMENT_MAX:
        raise UsageError(
            f"solver='assignment' forms an n x n matrix; n = {n} exceeds {ASSIGNMENT_MAX} "
            "(use solver='transport')"
        )
    if view.totals is not None:
        cells = tuple(expand_totals(t) for t in view.totals)
    else:
        assert view.elements is not None
        cells = view.elements
    counts = [np.bincount(cells[t], minlength=model.matrices[t].shape[0]) for t in range(npairs)]
    held = np.zeros((n, npairs), np.int64)
    ell = [np.zeros((n, s)) for s in sizes]

    def scores(t: int) -> np.ndarray:
        i, j = pairs[t]
        logq = model.log_prior[t][None] + ell[i][:, :, None] + ell[j][:, None, :]
        logq = logq.reshape(n, -1)
        logq -= logq.max(axis=1, keepdims=True)
        q = np.exp(logq)
        q /= q.sum(axis=1, keepdims=True)
        return np.asarray(np.log(q @ model.matrices[t] + _TINY))

    def add(t: int, sign: float) -> None:
        i, j = pairs[t]
        ell[i] += sign * model.evidence_i[t][:, held[:, t]].T
        ell[j] += sign * model.evidence_j[t][:, held[:, t]].T

    entropy = np.zeros(npairs)

    def posterior_entropy(t: int) -> float:
        """Mean entropy (bits) of a pair-``t`` report's posterior over the groups."""
        col = scores(t)
        col -= col.max(axis=0)
        post = np.exp(col)
        post /= post.sum(axis=0)
        h = -(post * np.log2(np.maximum(post, _TINY))).sum(axis=0)
        return float(counts[t] @ h) / n

    held[:, order[0]] = cells[order[0]]
    add(order[0], 1.0)
    for t in order[1:]:
        held[:, t] = _assign(scores(t), counts[t], solver)
        add(t, 1.0)
    for _ in range(sweeps):
        for t in order[1:]:
            add(t, -1.0)
            held[:, t] = _assign(scores(t), counts[t], solver)
            add(t, 1.0)
    for t in order[1:]:  # the attacker's final belief: each report given all the others
        add(t, -1.0)
        entropy[t] = posterior_entropy(t)
        add(t, 1.0)
    placed = [np.empty(0, np.int64)] * npairs
    placed[order[0]] = np.arange(n)
    for t in order[1:]:
        placed[t] = _place(cells[t], held[:, t], rng)
    h_mean = float(entropy[list(order[1:])].mean()) if npairs > 1 else math.log2(n)
    return Grouping(
        view.channel, order, tuple(placed), held, h_mean, model, solver, time.perf_counter() - start
    )


def party_groups(owners: Sequence[np.ndarray], grouping: Grouping, t: int) -> np.ndarray:
    """``out[i]``: the group holding party ``i``'s pair-``t`` element."""
    own = owners[t]
    out = np.empty(own.size, np.int64)
    out[own] = grouping.groups[t]
    return out


@dataclass(frozen=True)
class LinkabilityResult:
    """Linkage of pairwise submissions over one channel (see :func:`evaluate`)."""

    channel: str
    parties: int
    pairs: int
    success: float
    baseline: float
    ci: tuple[float, float]
    fully_relinked: float
    fully_relinked_baseline: float
    fully_relinked_ci: tuple[float, float]
    degree_of_anonymity: float
    anonymity_set: float
    confidence: float
    seconds: float

    def to_dict(self) -> dict[str, object]:
        return {
            "channel": self.channel,
            "parties": self.parties,
            "pairs": self.pairs,
            "success": self.success,
            "baseline": self.baseline,
            "ci": list(self.ci),
            "fully_relinked": self.fully_relinked,
            "fully_relinked_baseline": self.fully_relinked_baseline,
            "fully_relinked_ci": list(self.fully_relinked_ci),
            "degree_of_anonymity": self.degree_of_anonymity,
            "anonymity_set": self.anonymity_set,
            "confidence": self.confidence,
            "seconds": self.seconds,
        }


def evaluate(
    release: PairwiseRelease,
    owners: Sequence[np.ndarray],
    grouping: Grouping,
    *,
    confidence: float = 0.95,
) -> LinkabilityResult:
    """Score a regrouping against the truth (definitions in the module docstring)."""
    confidence = check_confidence(confidence)
    n, npairs = release.reports.shape
    if npairs < 2:
        raise UsageError("linkability needs at least two pairs (three attributes)")
    truth = release.reports
    handle = party_groups(owners, grouping, grouping.anchor)
    others = [t for t in range(npairs) if t != grouping.anchor]
    right = grouping.values[handle][:, others] == truth[:, others]
    per_party = right.mean(axis=1)
    success, lo, hi = mean_ci(per_party, confidence)
    share = np.empty((n, len(others)))
    for k, t in enumerate(others):
        share[:, k] = np.bincount(truth[:, t], minlength=release.cells(t))[truth[:, t]] / n
    full = int(right.all(axis=1).sum())
    log_n = math.log2(n)
    return LinkabilityResult(
        channel=grouping.channel,
        parties=n,
        pairs=npairs,
        success=success,
        baseline=float(share.mean()),
        ci=(lo, hi),
        fully_relinked=full / n,
        fully_relinked_baseline=float(np.exp(np.log(share).sum(axis=1)).mean()),
        fully_relinked_ci=cp_two_sided(full, n, confidence),
        degree_of_anonymity=grouping.entropy_bits / log_n if log_n > 0 else 0.0,
        anonymity_set=float(2.0**grouping.entropy_bits),
        confidence=confidence,
        seconds=grouping.seconds,
    )


@dataclass(frozen=True, eq=False)
class LinkageRun:
    """One release attacked over one channel: the view's owners, the grouping, the scores."""

    release: PairwiseRelease
    owners: tuple[np.ndarray, ...]
    grouping: Grouping
    result: LinkabilityResult
    extra: dict[str, object] = field(default_factory=dict)


def attack(
    release: PairwiseRelease,
    channel: str,
    rng: np.random.Generator,
    *,
    sweeps: int = 0,
    solver: str = "transport",
    confidence: float = 0.95,
) -> LinkageRun:
    """observe -> link -> evaluate, in one call."""
    view, owners = observe(release, channel, rng)
    grouping = link(view, release.mechanisms, rng, sweeps=sweeps, solver=solver)
    return LinkageRun(release, owners, grouping, evaluate(release, owners, grouping, confidence=confidence))
