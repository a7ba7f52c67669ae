"""Client answers: Algorithm 1 (``Client``) and the Monte-Carlo fake answer of Eq. 3.

For every subset of its view the client draws two uniforms (Imran & Meo,
Sec. 4.1): the first coin ``u_keep`` ("Head" when ``u_keep < p``) decides
whether it reports its true cell; otherwise the second draw ``q`` picks the
cell ``l`` of the public table ``T`` with ``sum_{j<l} T[j] <= q < sum_{j<=l}
T[j]`` (Eq. 3), i.e. inverse-CDF sampling.  Subsets are randomized
independently, so

    P(report y | true x) = p [y = x] + (1 - p) T[y]                 (*)

A client always draws both uniforms, ``rng.random((2, L))`` for a view of
``L`` subsets (row 0: coins, row 1: ``q``), so its generator advances the same
way whatever it answers.  :func:`client_answer` (one client: what a Client
role calls) and :func:`answers_from_uniforms` (a whole block) share the same
arithmetic and give identical answers for identical uniforms.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.rrba._tables import Layout, SubsetIndex

__all__ = ["answer_packed", "answers_from_uniforms", "cdf_table", "check_p", "client_answer"]


def check_p(p: float, name: str = "p") -> float:
    """``p`` (probability that the first coin gives Head) must lie in (0, 1]."""
    try:
        v = float(p)
    except (TypeError, ValueError):
        raise UsageError(f"{name} must be a number in (0, 1], got {p!r}") from None
    if not 0.0 < v <= 1.0:
        raise UsageError(f"{name} must be in (0, 1], got {p!r}")
    return v


def cdf_table(tables: np.ndarray, layout: Layout) -> np.ndarray:
    """Row-wise CDF of packed tables: last real cell exactly 1, padding 2 (never chosen)."""
    cdf = np.cumsum(np.where(layout.mask, tables, 0.0), axis=1)
    last = np.asarray(layout.cells) - 1
    rows = np.arange(layout.n_tables)
    total = cdf[rows, last]
    if (total <= 0).any():
        raise UsageError(f"tables: table {int(np.flatnonzero(total <= 0)[0])} has no mass")
    cdf /= total[:, None]
    cdf[rows, last] = 1.0
    cdf[~layout.mask] = 2.0
    return cdf


def answers_from_uniforms(
    true_cells: np.ndarray,
    tables_of: np.ndarray,
    u_keep: np.ndarray,
    q: np.ndarray,
    cdf: np.ndarray,
    p: float,
) -> np.ndarray:
    """Answers for many (client, subset) pairs at once.

    ``true_cells[j]`` is the true cell of answer ``j`` in table ``tables_of[j]``;
    ``cdf`` comes from :func:`cdf_table`.  A fake cell is the number of CDF
    entries ``<= q`` (Eq. 3): a binary search in the table's row, one
    ``searchsorted`` per table present.  A CDF row never decreases (a cumulative
    sum of non-negative cells, then padding 2) except where the last real cell
    is set to exactly 1, and ``q < 1`` lies below both entries there, so the
    count is the same as comparing ``q`` with every entry of the row.  Memory
    is ``O(answers)`` and time ``O(answers log W)``; comparing against every
    entry (``cdf[tables_of]``, an ``answers x W`` array) took 15 KB per client
    at 1,600 cells and grew with the widest table.
    """
    t = np.asarray(tables_of, dtype=np.intp)
    qs = np.asarray(q)
    fake = np.empty(t.size, dtype=np.intp)
    order = np.argsort(t, kind="stable")
    ts = t[order]
    cuts = (np.flatnonzero(np.diff(ts)) + 1).tolist()
    for lo, hi in zip([0, *cuts], [*cuts, ts.size], strict=True):
        if lo < hi:
            rows = order[lo:hi]
            fake[rows] = np.searchsorted(cdf[ts[lo]], qs[rows], side="right")
    return np.where(u_keep < p, true_cells, fake)


def client_answer(
    record: np.ndarray,
    view: Sequence[Sequence[int]],
    tables: Sequence[np.ndarray],
    sizes: Sequence[int],
    p: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """One client's answers: "my record + the tables I was sent + my generator -> my answer".

    Parameters
    ----------
    record:
        The client's category codes over all ``d`` attributes (``sizes``).
    view:
        The attribute subsets the aggregator asked (disjoint).
    tables:
        The public table of each subset (any shape with ``prod`` of its
        attributes' sizes cells, summing to 1).
    p:
        Probability of reporting the true cell, in (0, 1].

    Returns
    -------
    numpy.ndarray
        The reported cell of each subset (row-major in the subset's
        attribute order), shape ``(len(view),)``.
    """
    p = check_p(p)
    flat = [a for s in view for a in s]
    if not view or len(flat) != len(set(flat)):
        raise UsageError(f"client_answer: view must be non-empty disjoint subsets, got {view}")
    if len(tables) != len(view):
        raise UsageError(f"client_answer: got {len(tables)} tables for {len(view)} subsets")
    index = SubsetIndex(tuple(int(s) for s in sizes), tuple(tuple(int(a) for a in s) for s in view))
    layout = index.layout
    packed = layout.check_distributions(layout.pack(tables), "client_answer: tables")
    rec = index.check_codes(np.asarray(record).reshape(1, -1), "client_answer: record")
    return answer_packed(rec[0], index, cdf_table(packed, layout), p, rng)


def answer_packed(
    record: np.ndarray,
    index: SubsetIndex,
    cdf: np.ndarray,
    p: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """:func:`client_answer` on already validated inputs: the record's codes (within
    ``index.sizes``), the subsets of ``index`` (one view), the :func:`cdf_table` of their
    tables (``index.layout``), ``p`` checked.  One call of ``rng.random((2, L))``."""
    ids = np.arange(len(index.subsets))
    truth = index.cells(np.asarray(record)[None, :], np.zeros(ids.size, dtype=np.int64), ids)
    u = rng.random((2, ids.size))
    return answers_from_uniforms(truth, ids, u[0], u[1], cdf, p)
