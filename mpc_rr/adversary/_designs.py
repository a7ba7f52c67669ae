"""Distinguishing tests for black-box epsilon audits: which inputs, which guesses.

An audit (Jagielski, Ullman & Oprea 2020; LDP-Auditor, Arcolezi & Gambs,
PETS 2024) runs a mechanism on chosen inputs and counts how often an attacker
tells them apart.  We use one form for every mechanism, a *guessing game*:

* ``K`` candidate input records ``x_0 .. x_{K-1}``; each trial draws one
  uniformly, randomizes it, and shows the output ``y`` to the attacker;
* a guess rule ``g(y)`` names a candidate or abstains (``-1``).

**Lemma** (why any such test gives a valid bound).  If the mechanism is
epsilon-LDP then, among the trials where the attacker guesses, the
probability of a correct guess is at most ``e^eps / (e^eps + K - 1)``.
*Proof.*  For every output ``y`` with a guess, ``P[g(y) | y]`` is at most
``e^eps`` times each of the ``K - 1`` other rows' ``P[x' | y]``, so
``(K - 1) P[correct, y] <= e^eps P[wrong, y]``; sum over ``y``.  Hence with a
lower confidence bound ``lo`` on that precision,
``eps >= ln((K - 1) lo / (1 - lo))`` -- one binomial proportion, no union
bound, every guessing trial counted once.  ``K = 2`` with abstentions is the
guessing game of Steinke, Nasr & Jagielski (2023).

The test is *tight* when every guessed output sits at the mechanism's largest
likelihood ratio: then the precision equals ``e^eps / (e^eps + K - 1)``.

* :func:`structured_test` builds such a test from the known structure:
  k-RR / keep-or-uniform / the Sec. 6.3.2 cluster matrix (all of
  :class:`~mpc_rr.mechanisms.UniformMixture`): ``K`` cells, guess the output
  itself; λ-randomization and privacy-optimized RR: ``K = min(sizes)``
  records that differ in *every* attribute (the extreme levels ``X_∅`` and
  ``X_full``), guess on an exact match; a dense matrix: the pair of rows and
  the outputs with the largest ratio.
* :func:`search_test` treats the mechanism as a black box: a pilot run
  estimates its matrix, the pair of inputs and guess sets with the largest
  predicted lower bound are chosen, and the audit then runs on fresh trials
  (choosing on the audit's own trials would bias it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from mpc_rr.adversary._stats import check_count
from mpc_rr.core import UsageError
from mpc_rr.mechanisms import (
    JointMechanism,
    LambdaRandomization,
    RandomizationMatrix,
    UniformMixture,
)
from mpc_rr.mechanisms.optimized._build import PatternMechanism

__all__ = ["MAX_INPUTS", "SEARCH_MAX_CELLS", "GuessingTest", "search_test", "structured_test"]

#: Most candidate inputs a structured k-RR test uses (more = more guesses, same precision).
MAX_INPUTS = 1 << 16
#: Largest joint domain a black-box search estimates a full matrix for.
SEARCH_MAX_CELLS = 64


@dataclass(frozen=True, eq=False)
class GuessingTest:
    """``K`` candidate inputs and a guess rule over the flat output domain.

    Attributes
    ----------
    sizes:
        The mechanism's attribute sizes (outputs are flattened row-major).
    inputs:
        ``(K, k)`` int array of candidate records.
    table:
        Optional ``(N,)`` int array: the guess (``0..K-1`` or ``-1``) for each
        flat output.  ``None`` means *exact match*: guess ``j`` when the
        output equals ``inputs[j]``, abstain otherwise.
    label:
        How the test was chosen, for reports.
    """

    sizes: tuple[int, ...]
    inputs: np.ndarray
    table: np.ndarray | None = None
    label: str = ""
    _sorted: tuple[np.ndarray, np.ndarray] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        x = np.asarray(self.inputs, dtype=np.int64)
        if x.ndim != 2 or x.shape[1] != len(self.sizes) or x.shape[0] < 2:
            raise UsageError(
                f"GuessingTest: inputs must have shape (K >= 2, {len(self.sizes)}), got {x.shape}"
            )
        flat = np.ravel_multi_index(tuple(x.T), self.sizes)
        if np.unique(flat).size != flat.size:
            raise UsageError("GuessingTest: candidate inputs must be distinct records")
        if self.table is not None:
            n_cells = math.prod(self.sizes)
            t = np.asarray(self.table)
            if t.shape != (n_cells,) or t.min() < -1 or t.max() >= x.shape[0]:
                raise UsageError(
                    f"GuessingTest: table must have shape ({n_cells},) with values in "
                    f"-1..{x.shape[0] - 1}"
                )
        order = np.argsort(flat, kind="stable")
        object.__setattr__(self, "inputs", x)
        object.__setattr__(self, "_sorted", (flat[order], order))

    @property
    def k(self) -> int:
        """Number of candidate inputs ``K`` (the baseline is ``1/K``)."""
        return int(self.inputs.shape[0])

    def guess(self, outputs: np.ndarray) -> np.ndarray:
        """Guesses (``0..K-1``, ``-1`` = abstain) for ``(n, k)`` output records."""
        y = np.asarray(outputs).reshape(-1, len(self.sizes))
        flat = np.ravel_multi_index(tuple(y.T), self.sizes)
        if self.table is not None:
            return np.asarray(self.table[flat], dtype=np.int64)
        keys, order = self._sorted
        pos = np.minimum(np.searchsorted(keys, flat), keys.size - 1)
        return np.where(keys[pos] == flat, order[pos], -1).astype(np.int64)


def _exact_match(sizes: tuple[int, ...], flats: np.ndarray, label: str) -> GuessingTest:
    inputs = np.stack(np.unravel_index(flats, sizes), axis=1)
    return GuessingTest(sizes, inputs, None, label)


def _diagonal_records(sizes: tuple[int, ...]) -> np.ndarray:
    """``min(sizes)`` records ``(j, j, ..., j)``: every two differ in every attribute."""
    k = min(sizes)
    return np.repeat(np.arange(k)[:, None], len(sizes), axis=1)


def _pair_from_matrix(matrix: np.ndarray, sizes: tuple[int, ...], label: str) -> GuessingTest:
    """K = 2 test on the rows and outputs with the largest likelihood ratio of a matrix."""
    m = np.asarray(matrix, dtype=float)
    with np.errstate(divide="ignore"):
        logm = np.log(m)
    hi = logm.max(axis=0)
    lo = logm.min(axis=0)
    ratio = hi - lo
    v = int(np.argmax(np.where(np.isnan(ratio), -np.inf, ratio)))
    u, w = int(np.argmax(logm[:, v])), int(np.argmin(logm[:, v]))
    if u == w:
        u, w = 0, 1  # a constant matrix: any pair is as good (and as useless)
    best = float(ratio[v]) if np.isfinite(ratio[v]) else math.inf
    d = logm[u] - logm[w]
    tol = 1e-9 * max(1.0, abs(best)) if np.isfinite(best) else 0.0
    table = np.full(m.shape[1], -1, dtype=np.int64)
    table[d >= best - tol] = 0
    table[-d >= best - tol] = 1
    if best == 0.0:
        table[:] = 0  # nothing leaks: guess the first input always
    inputs = np.stack(np.unravel_index(np.array([u, w]), sizes), axis=1)
    return GuessingTest(sizes, inputs, table, label)


def structured_test(mechanism: JointMechanism, *, max_inputs: int = MAX_INPUTS) -> GuessingTest:
    """The tight test for a mechanism of known structure (see the module docstring).

    Raises
    ------
    UsageError
        For a mechanism type without a known structure (use :func:`search_test`).
    """
    sizes = tuple(int(s) for s in mechanism.sizes)
    if isinstance(mechanism, UniformMixture):
        n_cells = math.prod(sizes)
        k = min(n_cells, check_count(max_inputs, "max_inputs", 2))
        if n_cells < 2:
            raise UsageError(f"a mechanism over {n_cells} cell cannot be audited (nothing to tell apart)")
        return _exact_match(sizes, np.arange(k), f"k-RR structure: {k} cells, guess the output")
    if isinstance(mechanism, LambdaRandomization):
        rec = _diagonal_records(sizes)
        flats = np.ravel_multi_index(tuple(rec.T), sizes)
        return _exact_match(sizes, flats, f"Kronecker structure: {len(flats)} records differing everywhere")
    if isinstance(mechanism, PatternMechanism):
        if len(sizes) <= 26:
            levels = mechanism.levels()
            full = (1 << len(sizes)) - 1
            if not (np.argmax(levels) == 0 and levels[full] == levels.min()):
                if math.prod(sizes) <= 4096:
                    return _pair_from_matrix(mechanism.dense_matrix(), sizes, "pattern matrix: max-ratio pair")
                raise UsageError("pattern mechanism whose extreme levels are not X_empty / X_full")
        rec = _diagonal_records(sizes)
        flats = np.ravel_multi_index(tuple(rec.T), sizes)
        return _exact_match(sizes, flats, f"pattern structure: {len(flats)} records differing everywhere")
    if isinstance(mechanism, RandomizationMatrix):
        return _pair_from_matrix(mechanism.matrix, sizes, "dense matrix: max-ratio pair")
    raise UsageError(
        f"no known structure for {type(mechanism).__name__}; audit it as a black box (search_test)"
    )


def search_test(
    mechanism: JointMechanism,
    rng: np.random.Generator,
    *,
    pilot_trials: int = 200_000,
    final_trials: int = 1_000_000,
    confidence: float = 0.95,
) -> GuessingTest:
    """Choose a K = 2 test for a black box from a pilot run (fresh trials audit it after).

    Every one of the ``N`` inputs gets ``pilot_trials // N`` pilot trials; the
    empirical matrix (add-1/2 smoothed) gives, for every ordered pair of
    inputs ``(u, w)``, the log ratio of each output.  Candidate guess sets are
    "guess ``u`` where the ratio is at least ``t``, ``w`` where it is at most
    ``-t``"; the pair and ``t`` with the largest *predicted* lower bound at
    ``final_trials`` win (normal approximation to Clopper-Pearson, widened by
    the pilot's own sampling error), and among the candidates within one pilot
    standard error of the best the one with the most guesses is taken, so
    that pilot noise does not pick a needlessly small guess set.  All pairs
    and thresholds are scored at once (arrays of ``N^2 x N``).

    Raises
    ------
    UsageError
        If the joint domain exceeds :data:`SEARCH_MAX_CELLS` cells.
    """
    sizes = tuple(int(s) for s in mechanism.sizes)
    n_cells = math.prod(sizes)
    if n_cells > SEARCH_MAX_CELLS:
        raise UsageError(
            f"the black-box search scores every pair of inputs over the joint domain, at most "
            f"{SEARCH_MAX_CELLS} cells; this one has {n_cells}: audit it with the test built from "
            "its structure (no black-box search), or on fewer or smaller attributes"
        )
    if n_cells < 2:
        raise UsageError(f"a mechanism over {n_cells} cell cannot be audited (nothing to tell apart)")
    per_input = check_count(pilot_trials, "pilot_trials", n_cells) // n_cells
    check_count(final_trials, "final_trials", 1)
    cells = np.repeat(np.arange(n_cells), per_input)
    records = np.stack(np.unravel_index(cells, sizes), axis=1)
    out = np.asarray(mechanism.perturb(records, rng)).reshape(-1, len(sizes))
    flat = np.ravel_multi_index(tuple(out.T), sizes)
    counts = np.bincount(cells * n_cells + flat, minlength=n_cells * n_cells)
    phat = (counts.reshape(n_cells, n_cells) + 0.5) / (per_input + 0.5 * n_cells)
    logp = np.log(phat)
    d = logp[:, None, :] - logp[None, :, :]  # d[u, w, y] = ln P[u,y]/P[w,y]
    # candidate thresholds: every |d| value of the pair; guess u where d >= t, w where d <= -t
    order = np.argsort(-np.abs(d), axis=2, kind="stable")
    absd = np.take_along_axis(np.abs(d), order, axis=2)
    pu = np.broadcast_to(phat[:, None, :], d.shape)
    pw = np.broadcast_to(phat[None, :, :], d.shape)

    def take(a: np.ndarray) -> np.ndarray:
        return np.take_along_axis(a, order, axis=2)

    du = take(d)
    right = np.where(du >= 0, take(pu), take(pw))  # mass of correct guesses per output
    wrong = np.where(du >= 0, take(pw), take(pu))
    c_right = np.cumsum(right, axis=2) / 2.0  # inputs drawn half-half
    c_all = c_right + np.cumsum(wrong, axis=2) / 2.0
    # a threshold must take every output tied at the same |d| (cut only where |d| drops)
    last = np.ones_like(absd, dtype=bool)
    last[:, :, :-1] = absd[:, :, :-1] > absd[:, :, 1:] + 1e-12
    r = c_all * final_trials
    prec = np.divide(c_right, c_all, out=np.zeros_like(c_all), where=c_all > 0)
    z = float(stats.norm.isf(1.0 - confidence))
    # the pilot's own noise counts too: a small guess set whose precision looks higher
    # only by chance is not preferred to a larger one that is as good
    r_pilot = c_all * 2 * per_input
    spread = (1.0 / np.maximum(r, 1e-12)) + (1.0 / np.maximum(r_pilot, 1e-12))
    lo = prec - z * np.sqrt(np.maximum(prec * (1 - prec), 1e-12) * spread)
    lo = np.clip(lo, 1e-12, 1 - 1e-12)
    pred = np.where(last & (r >= 1), np.log(lo / (1 - lo)), -np.inf)
    idx = np.arange(n_cells)
    pred[idx, idx, :] = -np.inf
    # one-standard-error rule (Breiman et al. 1984): among the candidates within one pilot
    # standard error of the best (delta method for the logit), take the most guesses
    best = np.unravel_index(int(np.argmax(pred)), pred.shape)
    p_b = float(prec[best])
    se = 1.0 / math.sqrt(max(float(r_pilot[best]) * p_b * (1.0 - p_b), 1e-12))
    eligible = pred >= pred[best] - se
    u, w, j = np.unravel_index(int(np.argmax(np.where(eligible, c_all, -1.0))), pred.shape)
    chosen = order[u, w, : j + 1]
    table = np.full(n_cells, -1, dtype=np.int64)
    table[chosen[d[u, w, chosen] >= 0]] = 0
    table[chosen[d[u, w, chosen] < 0]] = 1
    inputs = np.stack(np.unravel_index(np.array([u, w]), sizes), axis=1)
    label = (
        f"black-box search ({per_input * n_cells:,} pilot trials): inputs {int(u)} vs {int(w)}, "
        f"{j + 1} guessed outputs"
    )
    return GuessingTest(sizes, inputs, table, label)

