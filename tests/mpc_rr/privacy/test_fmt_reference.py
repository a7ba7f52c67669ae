"""Our FMT21 accountant against every published figure we could find, and an independent evaluation.

Published figures (the paper, arXiv 2012.12803, is not in shared/papers; its Table 1 is
asymptotic and its numerical results are plots): the reference implementation's README
(github.com/apple/ml-shuffling-amplification) prints, for eps0 = 4, n = 10^5, delta = 10^-6,
the numerical search bracket 0.1675385583317841 .. 0.172790550755978 (10 bisection steps on
[0, closed form], the upper end with C binned in steps of 100) and the closed form
0.5378040242374512.  Everything else is checked against :func:`_direct_epsilon`: the same
divergence evaluated slowly and independently (every (c, k) in the window from
``scipy.stats.binom.pmf``, both directions), not through our tail formula or binning.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats

from mpc_rr.privacy import clone_probability, closed_form_epsilon, numerical_epsilon

README_LOW, README_HIGH, README_CLOSED = 0.1675385583317841, 0.172790550755978, 0.5378040242374512


def _direct_epsilon(eps0: float, n: int, delta: float, q: float) -> float:
    """Smallest eps with max(D(P||Q), D(Q||P)) <= delta by plain enumeration (an upper bound:
    the mass of C and of A outside the windows counts fully towards delta)."""
    alpha = math.exp(eps0) / (math.exp(eps0) + 1)
    tail = delta * 1e-6
    lo = int(stats.binom.ppf(tail, n - 1, q)) if n > 1 else 0
    hi = int(stats.binom.isf(tail, n - 1, q)) if n > 1 else 0
    c = np.arange(lo, hi + 1)
    wc = stats.binom.pmf(c, n - 1, q)
    out_c = max(0.0, 1.0 - float(wc.sum()))
    half = int(9 * math.sqrt(hi + 1) / 2 + 3)  # A ~ Bin(c, 1/2) beyond 9 sd: negligible
    mid = np.arange(-half, half + 2)
    k = np.rint(c / 2).astype(np.int64)[:, None] + mid[None, :]  # k = A + Delta
    cc = c[:, None]
    b_k = stats.binom.pmf(k, cc, 0.5)  # P(A = k)
    b_k1 = stats.binom.pmf(k - 1, cc, 0.5)  # P(A = k - 1)
    p = alpha * b_k1 + (1 - alpha) * b_k
    qq = (1 - alpha) * b_k1 + alpha * b_k
    out_k = float(np.dot(wc, np.clip(1.0 - p.sum(axis=1), 0.0, None)))
    extra = out_c + out_k

    def excess(eps: float) -> float:
        ee = math.exp(eps)
        d_pq = np.dot(wc, np.maximum(p - ee * qq, 0.0).sum(axis=1))
        d_qp = np.dot(wc, np.maximum(qq - ee * p, 0.0).sum(axis=1))
        return float(max(d_pq, d_qp)) + extra - delta

    if excess(0.0) <= 0:
        return 0.0
    return float(optimize.brentq(excess, 0.0, eps0, xtol=1e-9))


def test_reference_implementation_readme_figures() -> None:
    cf = closed_form_epsilon(4.0, 10**5, 1e-6)
    assert cf.valid and cf.central_epsilon == pytest.approx(README_CLOSED, abs=1e-9)
    assert "Thm 3.1" in cf.bound
    # their lower end is a bisection point of resolution closed_form / 2^10: the true value
    # of the divergence lies in [low - resolution, high]
    resolution = README_CLOSED / 2**10
    for points in (0, 10**6):  # binned (default) and every c
        num = numerical_epsilon(4.0, 10**5, 1e-6, points=points)
        assert README_LOW - resolution <= num.central_epsilon <= README_HIGH
        assert "clone reduction" in num.bound


@pytest.mark.parametrize(("eps0", "n", "delta"), [(4.0, 10**4, 1e-6), (1.0, 2000, 1e-8), (2.5, 300, 1e-5)])
def test_agrees_with_the_direct_evaluation(eps0: float, n: int, delta: float) -> None:
    ref = _direct_epsilon(eps0, n, delta, clone_probability(eps0))
    ours = numerical_epsilon(eps0, n, delta).central_epsilon
    assert ref - 1e-6 <= ours <= ref + 1e-3  # an upper bound, within 1e-3


@pytest.mark.slow
@pytest.mark.parametrize("eps0", [0.5, 1.0, 2.0, 4.0, 6.0])
@pytest.mark.parametrize("n", [10**3, 10**4, 10**5])
@pytest.mark.parametrize("delta", [1e-6, 1e-9])
def test_agrees_with_the_direct_evaluation_on_a_grid(eps0: float, n: int, delta: float) -> None:
    for k in (None, 4):
        ref = _direct_epsilon(eps0, n, delta, clone_probability(eps0, k))
        ours = numerical_epsilon(eps0, n, delta, k=k).central_epsilon
        assert ref - 1e-6 <= ours <= ref + 1e-3


@pytest.mark.slow
def test_published_point_by_the_direct_evaluation() -> None:
    ref = _direct_epsilon(4.0, 10**5, 1e-6, clone_probability(4.0))
    assert README_LOW - README_CLOSED / 2**10 <= ref <= README_HIGH
    assert numerical_epsilon(4.0, 10**5, 1e-6).central_epsilon == pytest.approx(ref, abs=1e-3)
