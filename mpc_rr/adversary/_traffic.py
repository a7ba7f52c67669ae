"""What a wire observer learns from traffic metadata: pure functions of a :class:`Transcript`.

An eavesdropper on a link or at the hub reads taps: over TLS it sees
``(time, src, dst, size)`` of each record; in plaintext also the bytes.  The
metrics here use only those fields of :class:`~mpc_rr.core.WireEvent`:

* :func:`activity` -- who took part and when (first/last send, messages,
  bytes per party): nothing is hidden without cover traffic;
* :func:`participation_leakage` -- can the observer tell the parties that
  took part (e.g. answered a survey) from those that did not?
* :func:`size_leakage` / :func:`timing_leakage` -- do message sizes or send
  times depend on private values?  They must not: fixed-length arrays give
  the baseline exactly, a variable-length encoding is detected.

Each leakage metric is one attack, :func:`feature_leakage`: a Bayes (MAP)
classifier from the observed feature to the private value, evaluated by
k-fold cross-validation, against the majority-class guess trained on the same
folds (the baseline: what guessing achieves).  Also reported: the plug-in
mutual information (bits) and the chi-squared test of independence.  In the
anonymity literature the same question is the sender/receiver anonymity of
Diaz et al. (2002) and Serjantov & Danezis (2002); see
:mod:`mpc_rr.adversary._linkability` for those metrics.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from mpc_rr.adversary._stats import check_confidence, check_count, cp_two_sided
from mpc_rr.core import Transcript, UsageError

__all__ = [
    "Activity",
    "LeakageResult",
    "activity",
    "feature_leakage",
    "participation_leakage",
    "size_leakage",
    "timing_leakage",
]


@dataclass(frozen=True)
class Activity:
    """One party's traffic as the observer saw it."""

    party: int
    first: float
    last: float
    messages: int
    bytes: int


@dataclass(frozen=True)
class LeakageResult:
    """A private value predicted from an observed feature.

    ``success``: cross-validated accuracy of the MAP classifier; ``baseline``:
    cross-validated accuracy of the majority guess; ``ci``: Clopper-Pearson
    interval of ``success``; ``mutual_information`` in bits (plug-in, biased
    upward on small samples); ``p_value`` of the chi-squared independence test
    (1.0 when the feature or the value is constant); ``permutation_p``: the
    share of label permutations whose cross-validated accuracy reaches the
    observed one (a test of "the feature carries the value" that stays valid
    on small samples and many distinct features; ``None`` if not run).
    """

    what: str
    units: int
    success: float
    baseline: float
    ci: tuple[float, float]
    confidence: float
    mutual_information: float
    p_value: float
    distinct_features: int
    permutation_p: float | None = None

    @property
    def leaks(self) -> bool:
        """The classifier beats the baseline beyond its interval (and, when a
        permutation test ran, beats label permutations at level ``1 - confidence``)."""
        beyond = self.ci[0] > self.baseline
        if self.permutation_p is None:
            return beyond
        return beyond and self.permutation_p < 1.0 - self.confidence

    def to_dict(self) -> dict[str, object]:
        return {
            "what": self.what,
            "units": self.units,
            "success": self.success,
            "baseline": self.baseline,
            "ci": list(self.ci),
            "confidence": self.confidence,
            "mutual_information_bits": self.mutual_information,
            "p_value": self.p_value,
            "distinct_features": self.distinct_features,
            "permutation_p": self.permutation_p,
            "leaks": self.leaks,
        }


def _codes(values: Sequence[Hashable]) -> np.ndarray:
    index: dict[Hashable, int] = {}
    return np.fromiter((index.setdefault(v, len(index)) for v in values), np.int64, len(values))


def feature_leakage(
    features: Sequence[Hashable],
    secrets: Sequence[Hashable],
    rng: np.random.Generator,
    *,
    what: str = "feature",
    folds: int = 5,
    confidence: float = 0.95,
    permutations: int = 0,
) -> LeakageResult:
    """How well an observed categorical feature predicts a private value (per unit).

    The MAP classifier predicts, for a held-out unit, the most frequent
    secret among training units with the same feature (the training majority
    for an unseen feature); ties go to the smallest secret code.  Folds are a
    random partition drawn from ``rng``.  Vectorized: one contingency table
    per fold.  ``permutations > 0`` also runs that many label permutations
    (same folds) for ``permutation_p`` (with the +1 correction of Phipson &
    Smyth 2010).
    """
    n = len(features)
    if n != len(secrets):
        raise UsageError(f"features and secrets must have the same length, got {n} and {len(secrets)}")
    folds = check_count(folds, "folds", 2)
    if n < folds:
        raise UsageError(f"need at least folds = {folds} units, got {n}")
    confidence = check_confidence(confidence)
    f = _codes(features)
    s = _codes(secrets)
    nf, ns = int(f.max()) + 1, int(s.max()) + 1
    permutations = check_count(permutations, "permutations", 0)
    fold = rng.permutation(n) % folds
    hit, base_hit = _cv_hits(f, s, fold, folds, nf, ns)
    perm_p = None
    if permutations:
        observed = int(hit.sum())
        reached = sum(
            int(_cv_hits(f, rng.permutation(s), fold, folds, nf, ns)[0].sum()) >= observed
            for _ in range(permutations)
        )
        perm_p = (reached + 1) / (permutations + 1)
    joint = np.zeros((nf, ns))
    np.add.at(joint, (f, s), 1.0)
    pj = joint / n
    pf, ps = pj.sum(axis=1, keepdims=True), pj.sum(axis=0, keepdims=True)
    nz = pj > 0
    mi = float(np.sum(pj[nz] * np.log2(pj[nz] / (pf @ ps)[nz])))
    rows, cols = joint.sum(axis=1) > 0, joint.sum(axis=0) > 0
    if rows.sum() > 1 and cols.sum() > 1:
        p_value = float(stats.chi2_contingency(joint[np.ix_(rows, cols)])[1])
    else:
        p_value = 1.0
    correct = int(hit.sum())
    return LeakageResult(
        what=what,
        units=n,
        success=correct / n,
        baseline=float(base_hit.mean()),
        ci=cp_two_sided(correct, n, confidence),
        confidence=confidence,
        mutual_information=max(0.0, mi),
        p_value=p_value,
        distinct_features=int(np.unique(f).size),
        permutation_p=perm_p,
    )


def _cv_hits(
    f: np.ndarray, s: np.ndarray, fold: np.ndarray, folds: int, nf: int, ns: int
) -> tuple[np.ndarray, np.ndarray]:
    """Held-out hits of the MAP classifier and of the majority guess."""
    n = f.size
    hit = np.zeros(n, dtype=bool)
    base_hit = np.zeros(n, dtype=bool)
    for k in range(folds):
        train, test = fold != k, fold == k
        table = np.bincount(f[train] * ns + s[train], minlength=nf * ns).reshape(nf, ns)
        majority = int(np.argmax(table.sum(axis=0)))
        seen = table.sum(axis=1) > 0
        pred = np.where(seen, np.argmax(table, axis=1), majority)
        hit[test] = pred[f[test]] == s[test]
        base_hit[test] = s[test] == majority
    return hit, base_hit


def activity(transcript: Transcript) -> dict[int, Activity]:
    """Who sent, when and how much (delivered or not: the wire saw it)."""
    out: dict[int, list[float]] = {}
    for e in transcript:
        a = out.setdefault(e.src, [e.time, e.time, 0.0, 0.0])
        a[0], a[1] = min(a[0], e.time), max(a[1], e.time)
        a[2] += 1
        a[3] += e.size
    return {
        p: Activity(p, v[0], v[1], int(v[2]), int(v[3])) for p, v in sorted(out.items())
    }


def _sent(transcript: Transcript, step: int | None, run: str | None) -> dict[int, list[tuple[float, int]]]:
    per: dict[int, list[tuple[float, int]]] = {}
    for e in transcript:
        if (step is not None and e.step != step) or (run is not None and e.run != run):
            continue
        per.setdefault(e.src, []).append((e.time, e.size))
    return per


def size_leakage(
    transcript: Transcript,
    secrets: Mapping[int, Hashable],
    rng: np.random.Generator,
    *,
    step: int | None = None,
    run: str | None = None,
    folds: int = 5,
    confidence: float = 0.95,
    permutations: int = 0,
) -> LeakageResult:
    """Predict each party's private value from the sizes of the messages it sent.

    Feature of party ``i``: the sequence of sizes of its events (in time
    order; optionally only one ``step``/``run`` label).  ``secrets`` maps
    party ids to private values (the ground truth, not seen by the attack).
    """
    per = _sent(transcript, step, run)
    parties = sorted(secrets)
    missing = [p for p in parties if p not in per]
    if len(missing) == len(parties):
        raise UsageError("size_leakage: no party of secrets sent anything in the transcript")
    feats = [tuple(sz for _, sz in sorted(per.get(p, []))) for p in parties]
    return feature_leakage(
        feats, [secrets[p] for p in parties], rng, what="message sizes", folds=folds,
        confidence=confidence, permutations=permutations,
    )


def timing_leakage(
    transcript: Transcript,
    secrets: Mapping[int, Hashable],
    rng: np.random.Generator,
    *,
    bins: int = 8,
    step: int | None = None,
    run: str | None = None,
    folds: int = 5,
    confidence: float = 0.95,
    permutations: int = 0,
) -> LeakageResult:
    """Predict each party's private value from when it first sent (quantile-binned).

    Times are binned into ``bins`` quantiles over the parties (equal times,
    as in a synchronous round, fall in one bin).
    """
    bins = check_count(bins, "bins", 1)
    per = _sent(transcript, step, run)
    parties = sorted(secrets)
    first = np.array([min(t for t, _ in per[p]) if p in per else np.inf for p in parties])
    finite = np.isfinite(first)
    if not finite.any():
        raise UsageError("timing_leakage: no party of secrets sent anything in the transcript")
    edges = np.unique(np.quantile(first[finite], np.linspace(0, 1, bins + 1)[1:-1]))
    binned = np.where(finite, np.searchsorted(edges, first, side="right"), -1)
    return feature_leakage(
        binned.tolist(), [secrets[p] for p in parties], rng, what="send times", folds=folds,
        confidence=confidence, permutations=permutations,
    )


def participation_leakage(
    transcript: Transcript,
    candidates: Sequence[int],
    participants: Sequence[int],
    rng: np.random.Generator,
    *,
    folds: int = 5,
    confidence: float = 0.95,
    permutations: int = 0,
) -> LeakageResult:
    """Tell who took part: feature = (messages sent, bytes sent) of each candidate.

    Without cover traffic the two classes differ (0 messages vs some) and the
    observer is right every time; with identical cover traffic from every
    candidate the result is the majority baseline.
    """
    act = activity(transcript)
    took = set(int(p) for p in participants)
    unknown = took - set(int(c) for c in candidates)
    if unknown:
        raise UsageError(f"participants {sorted(unknown)[:5]} are not among the candidates")
    feats = [(act[c].messages, act[c].bytes) if c in act else (0, 0) for c in candidates]
    return feature_leakage(
        feats, [int(c) in took for c in candidates], rng, what="participation", folds=folds,
        confidence=confidence, permutations=permutations,
    )
