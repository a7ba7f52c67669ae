"""Dependence measures (Expressions 8-9): Cramér's V, |Pearson| and the dependence matrix."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.core import UsageError
from mpc_rr.data import Attribute, Schema
from mpc_rr.estimation import contingency, cramers_v, dependence_matrix
from mpc_rr.estimation._dependence import pearson_abs


@settings(max_examples=30, deadline=None)
@given(
    r=st.lists(st.floats(0.01, 1), min_size=2, max_size=6),
    c=st.lists(st.floats(0.01, 1), min_size=2, max_size=6),
)
def test_cramers_v_zero_on_independent_tables(r: list[float], c: list[float]) -> None:
    assert cramers_v(np.outer(r, c) * 1000) == pytest.approx(0.0, abs=1e-7)


@pytest.mark.parametrize("k", [2, 3, 7])
def test_cramers_v_one_on_diagonal_tables(k: int) -> None:
    assert cramers_v(np.diag(np.arange(1, k + 1) * 10.0)) == pytest.approx(1.0)
    padded = np.zeros((k + 2, k))  # unused categories do not lower V
    padded[:k] = np.diag(np.full(k, 5.0))
    assert cramers_v(padded) == pytest.approx(1.0)


def test_cramers_v_known_value() -> None:
    # 2x2 table [[10, 20], [30, 40]]: chi2 = 0.7937..., n = 100, V = sqrt(chi2/100)
    t = np.array([[10.0, 20.0], [30.0, 40.0]])
    e = np.outer(t.sum(1), t.sum(0)) / 100
    chi2 = ((t - e) ** 2 / e).sum()
    assert cramers_v(t) == pytest.approx(np.sqrt(chi2 / 100))
    assert cramers_v(t) == pytest.approx(0.0890870806, rel=1e-8)


def test_pearson_abs_matches_numpy_corrcoef() -> None:
    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, 5000)
    b = np.clip(a + rng.integers(-1, 2, 5000), 0, 4)
    t = contingency(a, b, 4, 5)
    assert pearson_abs(t) == pytest.approx(abs(np.corrcoef(a, b)[0, 1]))
    assert pearson_abs(np.diag([1.0, 2.0, 3.0])[::-1]) == pytest.approx(1.0)


def test_bad_tables_are_rejected() -> None:
    with pytest.raises(UsageError, match="2-D"):
        cramers_v(np.ones(3))
    with pytest.raises(UsageError, match="non-negative"):
        cramers_v(np.array([[1.0, -1.0], [1.0, 1.0]]))
    with pytest.raises(UsageError, match="empty"):
        pearson_abs(np.zeros((2, 2)))


def test_dependence_matrix_uses_pearson_only_for_two_ordinals() -> None:
    schema = Schema(
        (
            Attribute("a", ("0", "1", "2"), ordinal=True),
            Attribute("b", ("0", "1", "2"), ordinal=True),
            Attribute("c", ("0", "1", "2")),
        )
    )
    rng = np.random.default_rng(1)
    a = rng.integers(0, 3, 3000)
    codes = np.stack([a, (a + 1) % 3, (a * 2) % 3], axis=1)  # non-monotone but deterministic
    d = dependence_matrix(codes, schema)
    assert d[0, 1] == pytest.approx(pearson_abs(contingency(codes[:, 0], codes[:, 1], 3, 3)))
    assert d[0, 1] < 0.9  # Pearson misses the wrap-around
    assert d[0, 2] == pytest.approx(1.0) and d[1, 2] == pytest.approx(1.0)  # Cramér's V does not
    np.testing.assert_allclose(d, d.T)


