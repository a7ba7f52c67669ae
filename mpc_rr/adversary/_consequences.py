"""What linking buys the aggregator: attribute inference, epsilon, re-identification.

Given a regrouping of pairwise-RR reports (:mod:`mpc_rr.adversary._linkability`):

* :func:`attribute_inference` -- the attacker holds one of party ``i``'s
  reports about attribute ``A`` (a *handle*) and guesses ``A`` by MAP from
  (a) the prior, (b) that single pair, (c) every report of the group the
  handle was linked into.  Accuracy of each, with Clopper-Pearson intervals.
* :func:`epsilon_consequence` -- Sec. 4.3 takes each attribute's epsilon as
  one pair release (parallel composition, "the unlinkability property
  closely matches the requirements of parallel composition"); an attribute
  released in ``m - 1`` pairs that the attacker links composes sequentially.
  Reported per attribute: the parallel figure claimed, the sequential one,
  and the figure the measured linking implies (mean over parties of the sum
  of the epsilons of ``i``'s own pair releases about ``A`` that the handle's
  group holds), with the share of parties for whom the whole sequential
  figure applies.
* :func:`reidentification` -- with an auxiliary public table holding every
  party's record among others (e.g. the parties' half of Adult plus the other
  half, ``adult.test``), how often a linked group points at exactly one
  record, and how often that record is the party's.

Group evidence uses the same per-attribute evidence tables as the attack
(:class:`~mpc_rr.adversary.PairModel`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mpc_rr.adversary._linkability import Grouping, PairwiseRelease, party_groups
from mpc_rr.adversary._stats import check_confidence, check_count, cp_two_sided
from mpc_rr.core import UsageError
from mpc_rr.mdrr import composed_epsilons

__all__ = [
    "EpsilonConsequence",
    "InferenceResult",
    "ReidentificationResult",
    "attribute_inference",
    "epsilon_consequence",
    "reidentification",
]


def _first_pair(pairs: Sequence[tuple[int, int]], order: Sequence[int], attr: int) -> int:
    for t in order:
        if attr in pairs[t]:
            return t
    raise UsageError(f"attribute {attr} is in no pair")


def _attribute_evidence(grouping: Grouping, attr: int, values: np.ndarray, only: int | None) -> np.ndarray:
    """Log posterior (unnormalized) of ``attr`` from report profiles ``values`` (rows x pairs)."""
    model = grouping.model
    post = np.log(np.maximum(model.attribute_prior(attr), 1e-300))[None, :].repeat(values.shape[0], 0)
    for t, (i, j) in enumerate(model.pairs):
        if attr not in (i, j) or (only is not None and t != only):
            continue
        table = model.evidence_i[t] if attr == i else model.evidence_j[t]
        post += table[:, values[:, t]].T
    return np.asarray(post)


@dataclass(frozen=True)
class InferenceResult:
    """Accuracy of guessing each attribute: prior / one pair / linked pairs / all own pairs.

    ``success`` is the mean linked accuracy, ``baseline`` the mean prior
    accuracy, ``ci`` the interval of the pooled linked guesses; ``own`` is
    what perfect linking (the direct channel) would give.
    """

    attributes: tuple[str, ...]
    prior: tuple[float, ...]
    single: tuple[float, ...]
    linked: tuple[float, ...]
    own: tuple[float, ...]
    linked_ci: tuple[tuple[float, float], ...]
    success: float
    single_mean: float
    baseline: float
    ci: tuple[float, float]
    confidence: float

    def to_dict(self) -> dict[str, object]:
        return {
            "attributes": list(self.attributes),
            "prior": list(self.prior),
            "single": list(self.single),
            "linked": list(self.linked),
            "own_pairs": list(self.own),
            "linked_ci": [list(c) for c in self.linked_ci],
            "success": self.success,
            "single_mean": self.single_mean,
            "baseline": self.baseline,
            "ci": list(self.ci),
            "confidence": self.confidence,
        }


def attribute_inference(
    release: PairwiseRelease,
    codes: np.ndarray,
    owners: Sequence[np.ndarray],
    grouping: Grouping,
    *,
    names: Sequence[str] | None = None,
    confidence: float = 0.95,
) -> InferenceResult:
    """MAP guesses of every attribute of every party (``codes`` is the truth, never the attack's input)."""
    confidence = check_confidence(confidence)
    c = np.asarray(codes)
    n, m = c.shape
    if n != release.parties or m != len(release.sizes):
        raise UsageError(f"codes must have shape ({release.parties}, {len(release.sizes)}), got {c.shape}")
    names = tuple(names) if names is not None else tuple(f"A{a}" for a in range(m))
    prior, single, linked, own, cis = [], [], [], [], []
    hits = 0
    for a in range(m):
        t = _first_pair(release.pairs, grouping.order, a)
        g = party_groups(owners, grouping, t)
        truth = c[:, a]
        mode = int(np.argmax(grouping.model.attribute_prior(a)))
        prior.append(float(np.mean(truth == mode)))
        held = grouping.values[g]
        one = np.argmax(_attribute_evidence(grouping, a, held, t), axis=1)
        single.append(float(np.mean(one == truth)))
        mine = np.argmax(_attribute_evidence(grouping, a, release.reports, None), axis=1)
        own.append(float(np.mean(mine == truth)))
        many = np.argmax(_attribute_evidence(grouping, a, held, None), axis=1)
        k = int(np.sum(many == truth))
        hits += k
        linked.append(k / n)
        cis.append(cp_two_sided(k, n, confidence))
    return InferenceResult(
        attributes=names,
        prior=tuple(prior),
        single=tuple(single),
        linked=tuple(linked),
        own=tuple(own),
        linked_ci=tuple(cis),
        success=float(np.mean(linked)),
        single_mean=float(np.mean(single)),
        baseline=float(np.mean(prior)),
        ci=cp_two_sided(hits, n * m, confidence),
        confidence=confidence,
    )


@dataclass(frozen=True)
class EpsilonConsequence:
    """Per attribute: the parallel figure Sec. 4.3 claims, the sequential one, what linking implies."""

    attributes: tuple[str, ...]
    parallel: tuple[float, ...]
    sequential: tuple[float, ...]
    implied: tuple[float, ...]
    sequential_share: tuple[float, ...]

    def to_dict(self) -> dict[str, object]:
        return {
            "attributes": list(self.attributes),
            "parallel_claimed": list(self.parallel),
            "sequential": list(self.sequential),
            "implied_by_linking": list(self.implied),
            "share_of_parties_fully_sequential": list(self.sequential_share),
        }


def epsilon_consequence(
    release: PairwiseRelease,
    owners: Sequence[np.ndarray],
    grouping: Grouping,
    *,
    names: Sequence[str] | None = None,
) -> EpsilonConsequence:
    """Epsilon per attribute: claimed (parallel), sequential, and implied by the measured linking.

    A pair release about ``A`` counts as linked for party ``i`` when the group
    holding ``i``'s handle report about ``A`` holds ``i``'s *own* report of
    that pair (the same randomization, not merely an equal value from someone
    else, which costs ``i`` nothing): the attacker then combines ``i``'s
    releases and their epsilons add up.  A random grouping implies the
    parallel figure plus ``1/n`` of the rest.
    """
    m = len(release.sizes)
    names = tuple(names) if names is not None else tuple(f"A{a}" for a in range(m))
    eps = {p: float(e) for p, e in zip(release.pairs, grouping.model.epsilons, strict=True)}
    seq, par = composed_epsilons(eps, m)
    implied, share = [], []
    for a in range(m):
        t0 = _first_pair(release.pairs, grouping.order, a)
        g = party_groups(owners, grouping, t0)
        total = np.zeros(release.parties)
        every = np.ones(release.parties, dtype=bool)
        for t, p in enumerate(release.pairs):
            if a not in p:
                continue
            ok = party_groups(owners, grouping, t) == g
            total += eps[p] * ok
            every &= ok
        implied.append(float(total.mean()))
        share.append(float(every.mean()))
    return EpsilonConsequence(
        names, tuple(par.tolist()), tuple(seq.tolist()), tuple(implied), tuple(share)
    )


@dataclass(frozen=True)
class ReidentificationResult:
    """How often a linked group points at exactly one record of the auxiliary table, and the right one.

    ``success``: share of sampled parties re-identified (unique best record and
    it is theirs); ``baseline``: a random record, ``1 / rows``;
    ``points_at_one``: share with a unique best record;
    ``single_success``: the same from the handle report alone;
    ``true_group_success``: from all of the party's own reports (the direct channel).
    """

    targets: int
    aux_rows: int
    success: float
    baseline: float
    ci: tuple[float, float]
    points_at_one: float
    single_success: float
    true_group_success: float
    unique_records: float
    confidence: float

    def to_dict(self) -> dict[str, object]:
        return {
            "targets": self.targets,
            "aux_rows": self.aux_rows,
            "success": self.success,
            "baseline": self.baseline,
            "ci": list(self.ci),
            "points_at_one": self.points_at_one,
            "single_success": self.single_success,
            "true_group_success": self.true_group_success,
            "share_of_targets_unique_in_aux": self.unique_records,
            "confidence": self.confidence,
        }


def reidentification(
    release: PairwiseRelease,
    owners: Sequence[np.ndarray],
    grouping: Grouping,
    aux: np.ndarray,
    rows: np.ndarray,
    rng: np.random.Generator,
    *,
    max_targets: int = 1000,
    confidence: float = 0.95,
) -> ReidentificationResult:
    """Match linked groups against an auxiliary table by likelihood.

    Parameters
    ----------
    aux:
        ``(R, m)`` records of the public table (identities = row numbers).
    rows:
        ``rows[i]``: the row of party ``i``'s record in ``aux`` (ground truth).
    max_targets:
        Parties sampled (without replacement) as targets; the table is searched whole.

    Notes
    -----
    The score of aux record ``x`` for a group is ``sum_t log M_t[x_t, y_t]``
    over the group's reports; identical aux records tie, so a record that is
    not unique in the table is never "one record".
    """
    confidence = check_confidence(confidence)
    max_targets = check_count(max_targets, "max_targets")
    a = np.asarray(aux, dtype=np.int64)
    n = release.parties
    if a.ndim != 2 or a.shape[1] != len(release.sizes):
        raise UsageError(f"aux must have shape (R, {len(release.sizes)}), got {a.shape}")
    r = np.asarray(rows, dtype=np.int64)
    if r.shape != (n,) or r.min() < 0 or r.max() >= a.shape[0]:
        raise UsageError(f"rows must give each of the {n} parties a row of aux (0..{a.shape[0] - 1})")
    distinct, inverse, dup = np.unique(a, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    targets = np.sort(rng.choice(n, size=min(max_targets, n), replace=False))
    model = grouping.model
    lay_cells = [distinct[:, i] * release.sizes[j] + distinct[:, j] for i, j in release.pairs]
    logm = [np.log(np.maximum(mm, 1e-300)) for mm in model.matrices]
    handle = party_groups(owners, grouping, grouping.anchor)[targets]

    def best(values: np.ndarray, use: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        top = np.empty(values.shape[0], np.int64)
        unique = np.empty(values.shape[0], dtype=bool)
        for s in range(0, values.shape[0], 256):
            sl = slice(s, s + 256)
            score = np.zeros((values[sl].shape[0], distinct.shape[0]))
            for t in use:
                score += logm[t][lay_cells[t][None, :], values[sl, t][:, None]]
            k = np.argmax(score, axis=1)
            mx = score[np.arange(k.size), k]
            ties = (score >= mx[:, None] - 1e-9).sum(axis=1)
            top[sl] = k
            unique[sl] = (ties == 1) & (dup[k] == 1)
        return top, unique

    everything = range(len(release.pairs))
    want = inverse[r[targets]]
    top, uniq = best(grouping.values[handle], everything)
    hit = uniq & (top == want)
    top1, uniq1 = best(grouping.values[handle], [grouping.anchor])
    topt, uniqt = best(release.reports[targets], everything)
    k = int(hit.sum())
    m_t = targets.size
    return ReidentificationResult(
        targets=m_t,
        aux_rows=int(a.shape[0]),
        success=k / m_t,
        baseline=1.0 / a.shape[0],
        ci=cp_two_sided(k, m_t, confidence),
        points_at_one=float(uniq.mean()),
        single_success=float(np.mean(uniq1 & (top1 == want))),
        true_group_success=float(np.mean(uniqt & (topt == want))),
        unique_records=float(np.mean(dup[want] == 1)),
        confidence=confidence,
    )
