"""The two-step MLE independence test on noisy tables (Imran & Meo, Sec. 6 and 7.3).

Step 1 (Eq. 7): the most likely table of counts given the noisy table ``T``::

    T_hat = argmin  gamma ||T - T_hat||_1 + (1 - gamma) ||T - T_hat||_2^2
            s.t.    sum T_hat = n,  T_hat >= 0                        (gamma = 0.01)

*Derivation (the paper does not give one).*  The problem is separable with
one coupling constraint.  Its KKT conditions say that every positive cell
satisfies ``2 (1 - gamma) (x_i - t_i) + gamma sign(x_i - t_i) = mu`` for one
multiplier ``mu``: all positive cells move by the same shift ``s`` (``s =
(mu -+ gamma) / (2 (1 - gamma))`` outside ``|mu| <= gamma``, ``0`` inside), and
a cell is 0 exactly when ``t_i + s <= 0``.  So ``T_hat = max(0, T + s)`` with
``s`` fixed by ``sum T_hat = n``: the Euclidean projection of ``T`` onto
``{x >= 0, sum x = n}``, *whatever* ``gamma`` in [0, 1).  The l1 term never
changes the answer (the paper's remark that the solution "converges to the
l1 solution when gamma is sufficiently large" only bites at ``gamma = 1``,
where the minimizer stops being unique).  We therefore compute step 1 as that
projection (exact, vectorized); the tests check it against Clarabel solving
Eq. 7 literally, for several ``gamma``.

Step 2: the maximum-likelihood expected counts under mutual independence,
``e = n prod_j (marginal_j / n)``, and Pearson's ``chi^2 = sum (T_hat - e)^2 / e``.

Decision (Sec. 7.3): simulate ``l > 1 / alpha`` tables from the independence
model ``e / n``, pass each through the *same* noise and the same two steps,
and reject H0 when the observed statistic exceeds the
``ceil((l + 1)(1 - alpha))``-th smallest simulated one.  If any cell of the
observed ``T_hat`` is below 5, H0 is accepted (the paper's rule of thumb).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.rrba._stopping import check_alpha
from mpc_rr.rrba._tables import Layout
from mpc_rr.rrba._update import repair

__all__ = [
    "IndependenceTest",
    "chi2_independence",
    "elastic_fit",
    "independence_test",
    "rank_threshold",
]

Simulator = Callable[[np.ndarray, int, np.random.Generator], np.ndarray]


def elastic_fit(noisy: np.ndarray, n: float, *, stacked: bool = False) -> np.ndarray:
    """Step 1 (Eq. 7): projection onto ``{x >= 0, sum x = n}``, independent of ``gamma``.

    ``noisy`` is one table (any shape) or, with ``stacked=True``, a stack
    whose first axis indexes tables.  Returns counts of the same shape.
    """
    t = np.asarray(noisy, dtype=float)
    if not np.isfinite(t).all():
        raise UsageError("elastic_fit: noisy table has non-finite cells")
    if not n > 0:
        raise UsageError(f"elastic_fit: n must be > 0, got {n!r}")
    rows = t.reshape(t.shape[0], -1) if stacked else t.reshape(1, -1)
    lay = Layout((rows.shape[1],) * rows.shape[0])
    out = float(n) * repair(rows / float(n), lay, "project")
    return out.reshape(t.shape)


def chi2_independence(
    counts: np.ndarray, shape: Sequence[int], *, stacked: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Step 2 for one table, or (``stacked=True``) ``(R, prod(shape))``: ``(chi^2, expected)``.

    Expected counts under mutual independence of the table's axes; cells with
    ``e = 0`` (an empty category) add nothing.
    """
    c = np.asarray(counts, dtype=float)
    shp = tuple(int(s) for s in shape)
    stack = c.reshape(-1, *shp)
    n = stack.reshape(stack.shape[0], -1).sum(axis=1)
    d = len(shp)
    exp = np.ones_like(stack)
    for ax in range(d):
        other = tuple(1 + a for a in range(d) if a != ax)
        marg = stack.sum(axis=other) / np.where(n > 0, n, 1.0)[:, None]
        exp = exp * marg.reshape(stack.shape[0], *[shp[a] if a == ax else 1 for a in range(d)])
    exp *= n.reshape(-1, *([1] * d))
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(exp > 0, (stack - exp) ** 2 / exp, 0.0)
    stat = terms.reshape(stack.shape[0], -1).sum(axis=1)
    return (stat if stacked else stat[0]), exp.reshape(c.shape)


def rank_threshold(simulated: np.ndarray, alpha: float) -> float:
    """The ``ceil((l + 1)(1 - alpha))``-th smallest of ``l`` simulated statistics."""
    a = check_alpha(alpha)
    s = np.sort(np.asarray(simulated, dtype=float).reshape(-1))
    lmin = math.floor(1.0 / a) + 1
    if s.size < lmin:
        raise UsageError(
            f"independence test: need l > 1/alpha = {1 / a:g} simulations, got {s.size}"
        )
    r = math.ceil((s.size + 1) * (1.0 - a))
    return float(s[min(r, s.size) - 1])


@dataclass(frozen=True)
class IndependenceTest:
    """Outcome: ``reject`` H0 (independence) or not, and why."""

    statistic: float
    threshold: float
    reject: bool
    small_cell: bool  # H0 accepted by the "cell < 5" rule of thumb
    fitted: np.ndarray  # T_hat (counts)
    simulated: np.ndarray  # the l simulated statistics


def independence_test(
    noisy: np.ndarray,
    n: float,
    simulate: Simulator,
    rng: np.random.Generator,
    *,
    alpha: float = 0.05,
    simulations: int | None = None,
) -> IndependenceTest:
    """Sec. 7.3 on one noisy table (counts, shaped like the table).

    ``simulate(pi, l, rng)`` must return ``l`` noisy count tables ``(l, cells)``
    of ``n`` records drawn from the distribution ``pi`` (flat) through the
    same noise as ``noisy`` (for RRBA: :func:`mpc_rr.rrba.rrba_simulator`).
    ``simulations`` (``l``) defaults to ``max(99, ceil(2 / alpha) - 1)``: 99 at
    alpha = 0.05, so ``(l + 1)(1 - alpha) = 95`` is an integer rank.
    """
    a = check_alpha(alpha)
    t = np.asarray(noisy, dtype=float)
    if t.size < 2 or t.ndim < 2:
        raise UsageError(f"independence test: need a table with >= 2 axes, got shape {t.shape}")
    l = simulations if simulations is not None else max(99, math.ceil(2.0 / a) - 1)
    if isinstance(l, bool) or not isinstance(l, int) or l <= 1.0 / a:
        raise UsageError(f"independence test: simulations must be an int > 1/alpha, got {l!r}")
    fitted = elastic_fit(t, n)
    stat, exp = chi2_independence(fitted, t.shape)
    small = bool((fitted < 5.0).any())
    sims = elastic_fit(simulate(exp.reshape(-1) / n, l, rng), n, stacked=True)
    sim_stats, _ = chi2_independence(sims, t.shape, stacked=True)
    thr = rank_threshold(sim_stats, a)
    return IndependenceTest(
        statistic=float(stat),
        threshold=thr,
        reject=bool(float(stat) > thr and not small),
        small_cell=small,
        fitted=fitted,
        simulated=np.asarray(sim_stats),
    )
