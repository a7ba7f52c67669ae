"""The block stopping rule of Imran & Meo, Sec. 5.

A table has converged at block ``k`` when every cell moved less than the
width of a ``1 - alpha`` confidence interval of a Bernoulli proportion::

    |T^{B_k}[v] - T^{B_{k-1}}[v]| < delta*

* normal approximation (the paper: when the cell count ``c = n q`` exceeds 5;
  we also require ``n - c > 5``, the usual second half of that rule of thumb,
  since the paper's symmetric interval is as wrong near ``q = 1`` as near 0)::

      delta* = 2 z_{1 - alpha/2} sqrt(q (1 - q) / n)

* otherwise the paper asks for "maximum likelihood confidence intervals with
  the log odds": the Wald interval on the logit scale, transformed back,
  ``expit(logit(q~) +- z / sqrt(n q~ (1 - q~)))`` with the Haldane-Anscombe
  correction ``q~ = (c + 1/2) / (n + 1)`` so that ``c = 0`` or ``c = n`` has a
  finite interval; ``delta*`` is its width.

``q`` is the current estimate (a repaired table cell, in [0, 1]) and ``n``
the number of answers the block contributed to that table.  The paper
returns the mean of the last two block estimates (step 4).  Sec. 7.1 counts
a run as converged when the rule "holds and remains valid throughout the
blocks": :func:`stable_from`.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, logit
from scipy.stats import norm

from mpc_rr.core import UsageError

__all__ = ["check_alpha", "holds", "stable_from", "tolerance"]


def check_alpha(alpha: float) -> float:
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        raise UsageError(f"alpha must be a number in (0, 1), got {alpha!r}") from None
    if not 0.0 < a < 1.0:
        raise UsageError(f"alpha must be in (0, 1), got {alpha!r}")
    return a


def tolerance(q: np.ndarray, n: np.ndarray, alpha: float) -> np.ndarray:
    """``delta*`` per cell for estimates ``q`` from ``n`` answers (broadcasting)."""
    a = check_alpha(alpha)
    z = float(norm.ppf(1.0 - a / 2.0))
    q_ = np.clip(np.asarray(q, dtype=float), 0.0, 1.0)
    n_ = np.maximum(np.asarray(n, dtype=float), 1.0)
    c = n_ * q_
    normal = (c > 5.0) & (n_ - c > 5.0)
    wald = 2.0 * z * np.sqrt(q_ * (1.0 - q_) / n_)
    qt = (c + 0.5) / (n_ + 1.0)
    se = 1.0 / np.sqrt((n_ + 1.0) * qt * (1.0 - qt))
    lo = logit(qt)
    width = expit(lo + z * se) - expit(lo - z * se)
    return np.asarray(np.where(normal, wald, width))


def holds(
    previous: np.ndarray, current: np.ndarray, n: np.ndarray, mask: np.ndarray, alpha: float
) -> np.ndarray:
    """Per table (rows of packed ``(S, W)`` arrays): every real cell within ``delta*``.

    ``n`` is ``(S,)``: the answers behind ``current``.
    """
    tol = tolerance(current, np.asarray(n)[:, None], alpha)
    ok = np.abs(current - previous) < tol
    return np.asarray(np.all(ok | ~mask, axis=1))


def stable_from(held: np.ndarray) -> np.ndarray:
    """First block (0-based) from which ``held`` stays True to the last block; -1 if none.

    ``held`` is ``(K, ...)`` bool over ``K`` blocks (Sec. 7.1: "the condition
    holds ... and remains valid throughout the blocks").
    """
    h = np.asarray(held, dtype=bool)
    if h.ndim == 0 or h.shape[0] == 0:
        raise UsageError("stable_from: needs at least one block")
    # length of the trailing run of True
    rev = h[::-1]
    trailing = np.where(rev.all(axis=0), h.shape[0], np.argmin(rev, axis=0))
    return np.where(trailing > 0, h.shape[0] - trailing, -1)
