"""Exact bivariate counts (Sec. 4.2) through both secure sums equal the plaintext crosstabs."""

from __future__ import annotations

import numpy as np
import pytest

from mpc_rr.data import ADULT_SCHEMA
from mpc_rr.estimation import dependence_matrix_from_tables
from mpc_rr.mdrr import PairLayout
from mpc_rr.mdrr._pair_cells import crosstabs
from mpc_rr.workflows import exact_bivariate_counts


@pytest.mark.parametrize("protocol", ["full-mesh", "full-mesh-board", "secagg"])
def test_adult_schema_tables_and_dependences_match_plaintext(protocol: str) -> None:
    rng = np.random.default_rng(4)
    n = 40
    codes = rng.integers(0, ADULT_SCHEMA.sizes, size=(n, len(ADULT_SCHEMA)))
    out = exact_bivariate_counts(codes, ADULT_SCHEMA, protocol=protocol, seed=1)
    assert out.report.exact and out.report.cells == PairLayout(ADULT_SCHEMA.sizes).cells == 1582
    ref = crosstabs(codes, ADULT_SCHEMA.sizes)
    for key, tab in ref.items():
        np.testing.assert_array_equal(out.tables[key], tab)
    np.testing.assert_allclose(out.dependence, dependence_matrix_from_tables(ref, ADULT_SCHEMA))


def test_with_dropouts_tables_count_the_included_parties() -> None:
    rng = np.random.default_rng(5)
    codes = rng.integers(0, ADULT_SCHEMA.sizes, size=(60, len(ADULT_SCHEMA)))
    out = exact_bivariate_counts(
        codes,
        ADULT_SCHEMA,
        protocol="secagg",
        dropout=0.1,
        drop_step="masked",
        seed=2,
        max_dropout=0.2,
    )
    assert out.report.survivors == 54
    assert all(t.sum() == 54 for t in out.tables.values())
