"""Dependences from noisy pair tables: the repairs, and the debiased chi-squared's bias."""

from __future__ import annotations

import numpy as np
import pytest

from mpc_rr.core import UsageError
from mpc_rr.data import Attribute, Schema
from mpc_rr.estimation import (
    cramers_v,
    debiased_cramers_v,
    noisy_dependence_matrix,
    repair_table,
)
from mpc_rr.privacy import skellam_noise


def _independent_table(n: int, rng: np.random.Generator) -> np.ndarray:
    a, b = rng.integers(0, 4, n), rng.integers(0, 5, n)
    return np.bincount(a * 5 + b, minlength=20).reshape(4, 5).astype(float)


def test_repairs_give_nonnegative_tables() -> None:
    t = np.array([[5.0, -3.0], [2.0, 6.0]])
    assert repair_table(t, 10, "clip").tolist() == [[5.0, 0.0], [2.0, 6.0]]
    p = repair_table(t, 10, "project")
    assert (p >= 0).all() and p.sum() == pytest.approx(10.0)
    assert repair_table(-np.ones((2, 2)), 4).tolist() == [[1.0, 1.0], [1.0, 1.0]]
    with pytest.raises(UsageError, match="repair must be one of"):
        repair_table(t, 10, "round")
    with pytest.raises(UsageError, match="parties must be >= 1"):
        repair_table(t, 0)


def test_debiasing_removes_the_noise_share_of_chi_squared() -> None:
    """Independent attributes (V near 0): noise inflates clipped V; the debiased V stays near 0."""
    rng = np.random.default_rng(3)
    variance = 1600.0
    clipped, debiased, exact = [], [], []
    for _ in range(40):
        t = _independent_table(5000, rng)
        noisy = t + skellam_noise(variance, t.shape, rng)
        exact.append(cramers_v(t))
        clipped.append(cramers_v(repair_table(noisy, 5000)))
        debiased.append(debiased_cramers_v(noisy, variance))
    bias_clip = np.mean(clipped) - np.mean(exact)
    bias_debiased = np.mean(debiased) - np.mean(exact)
    assert bias_clip > 0.03
    assert abs(bias_debiased) < bias_clip / 3
    assert debiased_cramers_v(t, 0.0) == pytest.approx(cramers_v(t))


def test_noisy_dependence_matrix_uses_pearson_for_ordinal_pairs() -> None:
    schema = Schema(
        (
            Attribute("a", ("0", "1", "2"), ordinal=True),
            Attribute("b", ("0", "1", "2"), ordinal=True),
            Attribute("c", ("x", "y"), ordinal=False),
        )
    )
    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, 3000)
    codes = np.stack([a, np.minimum(a + rng.integers(0, 2, 3000), 2), rng.integers(0, 2, 3000)], 1)
    tables = {
        (i, j): np.bincount(codes[:, i] * s + codes[:, j], minlength=r * s)
        .reshape(r, s)
        .astype(float)
        for (i, r) in enumerate(schema.sizes)
        for (j, s) in enumerate(schema.sizes)
        if i < j
    }
    d0 = noisy_dependence_matrix(tables, schema, 3000, 0.0, "debias")
    d1 = noisy_dependence_matrix(tables, schema, 3000, 0.0, "clip")
    assert d0 == pytest.approx(d1)
    assert d0[0, 1] > 0.7 and d0[0, 2] < 0.1 and (d0 == d0.T).all()
    with pytest.raises(UsageError, match=r"missing table for pair \(0, 2\)"):
        noisy_dependence_matrix({(0, 1): tables[(0, 1)]}, schema, 3000, 0.0)
