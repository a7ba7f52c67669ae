"""Which marginals ``marginal_errors`` evaluates: the cap on the solver's rows, its count, and
the same sets as plain sampling when every set fits."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest

from mpc_rr.core import UsageError
from mpc_rr.data import Attribute, Dataset, Schema
from mpc_rr.rrba import cover, run_rrba
from mpc_rr.rrba._consistency import marginal_operator, marginal_rows
from mpc_rr.rrba._marginal_ipm import distinct_marginals
from mpc_rr.workflows._rrba import _targets, marginal_errors


def _data(sizes: tuple[int, ...], n: int) -> Dataset:
    schema = Schema(
        tuple(Attribute(f"a{i}", tuple(map(str, range(c)))) for i, c in enumerate(sizes))
    )
    return Dataset(schema, np.random.default_rng(0).integers(0, sizes, (n, len(sizes))))


def test_marginal_rows_are_the_distinct_rows_of_the_structured_solver() -> None:
    sizes = (3, 4, 2, 5, 3)
    subsets = cover(5, 2).subsets
    tables = [np.full([sizes[a] for a in s], 1.0 / np.prod([sizes[a] for a in s])) for s in subsets]
    for tg in [(0, 1, 3), (1, 2, 3, 4), (4, 0, 2)]:
        _, b = marginal_operator(tg, sizes, subsets, tables)
        commons = [tuple(tg.index(a) for a in tg if a in s) for s in subsets]
        blocks, _, _ = distinct_marginals([sizes[a] for a in tg], [c for c in commons if c], b)
        assert marginal_rows(tg, sizes, subsets) == blocks.m


def test_sampling_is_unchanged_when_every_set_fits() -> None:
    # the draws of plain sampling (the rule never refuses): same sets for the same seed
    plain: set[tuple[int, ...]] = set()
    rng = np.random.default_rng(3)
    while len(plain) < 20:
        plain.add(tuple(sorted(int(a) for a in rng.choice(12, 3, replace=False))))
    got, refused = _targets(12, 3, 20, np.random.default_rng(3), lambda t: True)
    assert got == sorted(plain) and refused == 0


def test_sets_over_the_cap_are_skipped_and_counted() -> None:
    big = lambda t: 0 not in t  # noqa: E731 - refuse every set with attribute 0
    got, refused = _targets(6, 3, 5, np.random.default_rng(1), big)
    assert len(got) == 5 and all(0 not in t for t in got) and refused > 0
    every, refused_all = _targets(5, 3, 20, np.random.default_rng(1), big)
    assert every == [t for t in combinations(range(5), 3) if 0 not in t]
    assert refused_all == 6  # C(4, 2): the 3-sets with attribute 0


def test_marginal_errors_keeps_only_sets_within_max_rows_and_reports_progress() -> None:
    sizes = (12, 11, 2, 3, 2)
    data = _data(sizes, 600)
    run = run_rrba(data, p=0.5, block=300, k=2, seed=0)
    subsets = run.cover.subsets
    cap = 150  # 3-way rows: 23..227, 4-way: 111..281 (some of each order fit, some do not)
    calls: list[tuple[int, int, int]] = []
    out = marginal_errors(run, data, np.random.default_rng(0), max_tables=20, max_rows=cap,
                          progress=lambda m, i, t: calls.append((m, i, t)))  # fmt: skip
    for m in ("3", "4"):
        fit = [t for t in combinations(range(5), int(m)) if marginal_rows(t, sizes, subsets) <= cap]
        assert 0 < len(fit) < math.comb(5, int(m))
        assert out[m]["tables"] == len(fit) and out[m]["skipped"] == math.comb(5, int(m)) - len(fit)
        assert out[m]["max_rows"] == cap
    assert out["2"]["skipped"] == 0  # the collection's own tables always fit
    # after each marginal: (order, done, that order's total)
    totals = {m: out[str(m)]["tables"] for m in (2, 3, 4)}
    assert calls == [(m, i + 1, t) for m, t in totals.items() for i in range(t)]


def test_an_order_with_no_set_that_fits_is_left_out() -> None:
    data = _data((12, 11, 10), 300)
    run = run_rrba(data, p=0.5, block=300, k=2, seed=0)
    out = marginal_errors(run, data, np.random.default_rng(0), max_rows=100)
    assert set(out) == {"2"} and marginal_rows((0, 1, 2), (12, 11, 10), run.cover.subsets) > 100


def test_max_rows_below_one_is_refused() -> None:
    data = _data((2, 3, 2), 100)
    run = run_rrba(data, p=0.5, block=100, k=2, seed=0)
    with pytest.raises(UsageError, match="max_rows"):
        marginal_errors(run, data, np.random.default_rng(0), max_rows=0)
