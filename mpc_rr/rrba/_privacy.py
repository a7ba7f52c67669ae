"""The true local epsilon of an RRBA answer, next to the paper's figure.

Imran & Meo, Theorem 4.1 / Eq. 6, claim ``epsilon = ln(1 / (1 - p))``,
independent of the public table ``T``.  Their proof compares ``p q + (1-p) q``
with ``(1-p) q``, using one ``q`` for both the true value's frequency and the
sampling probability.  The mechanism a client actually runs is (Algorithm 1,
Eq. 3; docs/rrba.md, true epsilon)::

    P(y | x) = p [y = x] + (1 - p) T[y]

Column ``y`` of this matrix has ``p + (1 - p) T[y]`` on the diagonal and
``(1 - p) T[y]`` everywhere else, so (Definition 3.2, max column ratio)::

    epsilon(T) = max_y ln(1 + p / ((1 - p) T[y]))

which is unbounded as a cell of ``T`` goes to 0, is ``+inf`` for ``p = 1``
(and ``0`` for a one-cell table).  Example: ``p = 0.5`` on a uniform 2 x 2
table gives ``ln 5 = 1.609``, not ``ln 2 = 0.693``.  A client answers every
subset of its view, each with independent coins: sequential composition, so
its epsilon is the *sum* over the view.  A floor ``f`` on every cell caps one
subset's epsilon at ``ln(1 + p / ((1 - p) f))``.
"""

from __future__ import annotations

import math

import numpy as np

from mpc_rr.rrba._client import check_p
from mpc_rr.rrba._tables import Layout

__all__ = [
    "epsilon_cap",
    "implied_matrix",
    "paper_epsilon",
    "table_epsilon",
    "view_epsilon",
]


def paper_epsilon(p: float) -> float:
    """Theorem 4.1 / Eq. 6 as printed: ``ln(1 / (1 - p))`` (``inf`` at ``p = 1``)."""
    p = check_p(p)
    return math.inf if p >= 1.0 else -math.log1p(-p)


def table_epsilon(tables: np.ndarray, layout: Layout, p: float) -> np.ndarray:
    """True epsilon of answering each packed table: ``(S,)`` floats (see module docstring)."""
    p = check_p(p)
    t = np.where(layout.mask, tables, np.inf)  # padding never the minimum
    tmin = t.min(axis=1)
    cells = np.asarray(layout.cells)
    if p >= 1.0:
        return np.where(cells > 1, np.inf, 0.0)
    with np.errstate(divide="ignore"):
        eps = np.log1p(p / ((1.0 - p) * tmin))
    return np.where(cells > 1, eps, 0.0)


def view_epsilon(per_table: np.ndarray, view_tables: np.ndarray) -> np.ndarray:
    """Sum of ``per_table`` over each view (``view_tables`` padded with -1): ``(V,)``."""
    vt = np.asarray(view_tables)
    vals = np.where(vt >= 0, np.asarray(per_table)[np.maximum(vt, 0)], 0.0)
    return np.asarray(vals.sum(axis=1))


def epsilon_cap(t_floor: float, p: float) -> float:
    """Largest per-subset epsilon once every cell is at least ``t_floor``."""
    p = check_p(p)
    if t_floor <= 0.0 or p >= 1.0:
        return math.inf
    return math.log1p(p / ((1.0 - p) * t_floor))


def implied_matrix(table: np.ndarray, p: float) -> np.ndarray:
    """Dense ``P[x, y] = p [y = x] + (1 - p) T[y]`` of one table (for audits and tests)."""
    p = check_p(p)
    t = np.asarray(table, dtype=float).reshape(-1)
    return p * np.eye(t.size) + (1.0 - p) * np.broadcast_to(t, (t.size, t.size))
