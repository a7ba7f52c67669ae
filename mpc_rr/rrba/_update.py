"""Table updates: Eq. 4 as written, the pooled estimator, repairs, and the floor.

All functions act on packed ``(S, W)`` tables (:class:`~mpc_rr.rrba.Layout`)
and are vectorized over every table and cell.

Eq. 4 (Imran & Meo, Sec. 4.1) replaces a table by the estimate from the
latest answers alone::

    T'[v] = (o_v / n - (1 - p) T[v]) / p

Version 1 applies it after every client (``n = 1``, ``o`` one-hot); version 2
(Sec. 4.1.1, block aggregation) after a block of ``n`` answers.  Both are
:func:`eq4`; version 1 is version 2 with blocks of one client.

Eq. 4 is unbiased for one block's clients *given* the table ``T`` they saw
(from (*) in :mod:`mpc_rr.rrba._client`, ``E[o_v / n] = p pi_v + (1 - p) T[v]``)
but throws every earlier block away, and its error obeys
``e_{k+1} = noise_k / p - ((1 - p) / p) e_k``: for ``p <= 1/2`` the factor has
modulus >= 1 and the error does not shrink (docs/rrba.md, Eq. 4 does not converge).  The *pooled*
estimator uses every block, each with the table it was sampled from::

    pi_hat = (sum_k o_k / N - (1 - p) sum_k n_k T_k / N) / p,   N = sum_k n_k

It is unbiased for the empirical distribution of all answering clients and
its variance falls as ``1 / N``.  It needs only three running sums, which is
what :class:`~mpc_rr.rrba.BlockAggregator` keeps.

Both can leave the simplex; before the next block samples from it the table
is *repaired* (the paper is silent): ``"clip"`` (negatives to 0, rescale, as
the mdrr paper's Sec. 6.4; all-non-positive rows become uniform) or
``"project"`` (exact Euclidean projection onto the simplex).  An optional
``t_floor`` then mixes the table with the uniform one,
``T_f = (1 - C f) T + f``, so every cell is at least ``f`` and the client's
epsilon at most ``ln(1 + p / ((1 - p) f))`` (:mod:`mpc_rr.rrba._privacy`).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.rrba._choices import REPAIRS
from mpc_rr.rrba._tables import Layout

__all__ = ["REPAIRS", "apply_floor", "check_floor", "eq4", "pooled", "repair"]

Repair = Literal["clip", "project"]


def eq4(counts: np.ndarray, n: np.ndarray, tables: np.ndarray, p: float) -> np.ndarray:
    """Eq. 4 for every table: ``(counts / n - (1 - p) T) / p``; rows with ``n = 0`` keep ``T``."""
    n_ = np.asarray(n, dtype=float)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        raw = (counts / n_ - (1.0 - p) * tables) / p
    return np.where(n_ > 0, raw, tables)


def pooled(sum_counts: np.ndarray, sum_n: np.ndarray, sum_nt: np.ndarray, p: float) -> np.ndarray:
    """Pooled estimate from running sums ``sum o_k``, ``sum n_k``, ``sum n_k T_k``.

    Rows with no answer yet are 0 (callers keep the previous table for them).
    """
    n_ = np.asarray(sum_n, dtype=float)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        raw = (sum_counts - (1.0 - p) * sum_nt) / (p * n_)
    return np.where(n_ > 0, raw, 0.0)


def repair(raw: np.ndarray, layout: Layout, method: str = "clip") -> np.ndarray:
    """Bring every row of ``raw`` back onto the probability simplex (see module docstring)."""
    if method == "clip":
        x = np.where(layout.mask, np.clip(raw, 0.0, None), 0.0)
        s = x.sum(axis=1, keepdims=True)
        return np.where(s > 0, x / np.where(s > 0, s, 1.0), layout.uniform())
    if method == "project":
        return _project_rows(raw, layout)
    raise UsageError(f"repair must be one of {REPAIRS}, got {method!r}")


def _project_rows(raw: np.ndarray, layout: Layout) -> np.ndarray:
    """Euclidean projection of each row onto its simplex (sort-based, Held et al. 1974)."""
    mask = layout.mask
    u = np.where(mask, raw, -np.inf)
    u = -np.sort(-u, axis=1)  # descending, padding (-inf) last
    css = np.cumsum(np.where(np.isfinite(u), u, 0.0), axis=1) - 1.0
    ks = np.arange(1, layout.width + 1)[None, :]
    ok = (u - css / ks > 0) & np.isfinite(u)
    rho = layout.width - 1 - np.argmax(ok[:, ::-1], axis=1)  # last True per row
    theta = css[np.arange(layout.n_tables), rho] / (rho + 1.0)
    return np.where(mask, np.maximum(raw - theta[:, None], 0.0), 0.0)


def check_floor(t_floor: float, layout: Layout) -> float:
    """``t_floor`` must satisfy ``0 <= f <= 1 / C`` for the largest table of ``C`` cells."""
    try:
        f = float(t_floor)
    except (TypeError, ValueError):
        raise UsageError(f"t_floor must be a number, got {t_floor!r}") from None
    limit = 1.0 / layout.width
    if not 0.0 <= f <= limit:
        raise UsageError(
            f"t_floor must be in [0, 1/{layout.width}] = [0, {limit:.6g}] (the largest table "
            f"has {layout.width} cells), got {t_floor!r}"
        )
    return f


def apply_floor(tables: np.ndarray, layout: Layout, t_floor: float) -> np.ndarray:
    """``(1 - C f) T + f`` on every real cell: each cell >= ``f``, rows still sum to 1."""
    if t_floor <= 0.0:
        return tables
    c = np.asarray(layout.cells, dtype=float)[:, None]
    return np.where(layout.mask, (1.0 - c * t_floor) * tables + t_floor, 0.0)
