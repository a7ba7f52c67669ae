"""Schema, CSV encoding, the Adult loader, count queries and distances."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from mpc_rr.core import UsageError
from mpc_rr.data import (
    ADULT_SCHEMA,
    Attribute,
    Dataset,
    Schema,
    encode_columns,
    load_adult,
    load_csv,
)
from mpc_rr.estimation import (
    CountQuery,
    FactorModel,
    WeightedRecords,
    answer,
    jensen_shannon,
    l2_distance,
    make_queries,
    relative_error,
    true_count,
)

SCHEMA = Schema(
    (Attribute("color", ("red", "green")), Attribute("size", ("S", "M", "L"), ordinal=True))
)


def test_encode_and_errors(tmp_path: Path) -> None:
    d = encode_columns({"color": ["red", "green", "red"], "size": ["L", "S", "M"]}, SCHEMA)
    np.testing.assert_array_equal(d.codes, [[0, 2], [1, 0], [0, 1]])
    with pytest.raises(
        UsageError, match=r"attribute 'size' has unseen category 'XL' \(first at record 1\)"
    ):
        encode_columns({"color": ["red", "red"], "size": ["S", "XL"]}, SCHEMA)
    with pytest.raises(UsageError, match=r"missing columns \['size'\]"):
        encode_columns({"color": ["red"]}, SCHEMA)
    with pytest.raises(UsageError, match="empty input"):
        encode_columns({"color": [], "size": []}, SCHEMA)
    f = tmp_path / "x.csv"
    f.write_text("color,size\n")
    with pytest.raises(UsageError, match="has no records"):
        load_csv(f, SCHEMA)
    f.write_text("color, size\nred, M\n\ngreen, L\n")
    np.testing.assert_array_equal(load_csv(f, SCHEMA).codes, [[0, 1], [1, 2]])
    with pytest.raises(UsageError, match="duplicate categories"):
        Attribute("a", ("x", "x"))


def test_dataset_validates_codes() -> None:
    with pytest.raises(UsageError, match=r"record 1, attribute 'size': code 3 outside 0..2"):
        Dataset(SCHEMA, np.array([[0, 0], [1, 3]]))
    with pytest.raises(UsageError, match="no records"):
        Dataset(SCHEMA, np.zeros((0, 2), dtype=int))


def test_adult_has_the_papers_shape() -> None:
    d = load_adult()
    assert d.n == 32_561
    assert d.schema.sizes == (9, 16, 7, 15, 6, 5, 2, 2)
    assert d.schema.domain_size == 1_814_400
    assert np.bincount(d.codes[:, 6]).tolist() == [10_771, 21_790]  # Female, Male (MANIFEST)
    assert np.bincount(d.codes[:, 0])[ADULT_SCHEMA.attributes[0].categories.index("?")] == 1_836


def test_queries_follow_section_6_5() -> None:
    rng = np.random.default_rng(0)
    codes = np.stack(
        [rng.integers(0, 4, 500), rng.integers(0, 5, 500), rng.integers(0, 2, 500)], axis=1
    )
    qs = make_queries(codes, (4, 5, 2), 50, 0.3, rng)
    for q in qs:
        a, b = q.attrs
        assert a < b and q.mask.shape == ((4, 5, 2)[a], (4, 5, 2)[b])
        assert q.mask.sum() == max(1, round(0.3 * q.mask.size))
        assert true_count(codes, q) >= 1
    with pytest.raises(UsageError, match=r"sigma must be in \(0, 1\]"):
        make_queries(codes, (4, 5, 2), 1, 0.0, rng)


def test_exact_models_answer_exactly() -> None:
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 3, size=(300, 3))
    q = CountQuery((0, 2), rng.random((3, 3)) < 0.5)
    # the true joint as one factor
    joint = (
        np.bincount(np.ravel_multi_index(tuple(codes.T), (3, 3, 3)), minlength=27).reshape(3, 3, 3)
        / 300
    )
    assert answer(FactorModel((3, 3, 3), ((0, 1, 2),), (joint,)), q, 300) == pytest.approx(
        true_count(codes, q)
    )
    assert answer(
        WeightedRecords((3, 3, 3), codes, np.full(300, 1 / 300)), q, 300
    ) == pytest.approx(true_count(codes, q))
    # an independence model multiplies marginals
    m0 = np.bincount(codes[:, 0], minlength=3) / 300
    m12 = joint.sum(axis=0)
    fm = FactorModel((3, 3, 3), ((0,), (1, 2)), (m0, m12))
    np.testing.assert_allclose(fm.marginal([2, 0]), np.outer(m12.sum(axis=0), m0))


def test_errors_and_distances() -> None:
    assert relative_error(90, 100) == pytest.approx(0.1)
    with pytest.raises(UsageError, match="true count is 0"):
        relative_error(1, 0)
    assert jensen_shannon([1, 0], [0, 1]) == pytest.approx(1.0)
    assert jensen_shannon([0.3, 0.7], [0.3, 0.7]) == 0.0
    assert l2_distance([1, 0], [0, 1]) == pytest.approx(math.sqrt(2))
    with pytest.raises(UsageError, match="differ in size"):
        l2_distance([1, 0], [1, 0, 0])
