"""Schema, CSV encoding, dataset validation and the Adult loader."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mpc_rr.core import UsageError
from mpc_rr.data import ADULT_SCHEMA, Attribute, Dataset, Schema, load_adult, load_csv
from mpc_rr.data._schema import encode_columns

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


