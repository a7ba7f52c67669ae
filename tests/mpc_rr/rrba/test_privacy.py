"""The true epsilon of RRBA answers (the max column ratio) and the design note's example."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.mechanisms import local_epsilon
from mpc_rr.rrba import epsilon_cap, paper_epsilon, table_epsilon, view_epsilon
from mpc_rr.rrba._privacy import implied_matrix
from mpc_rr.rrba._tables import Layout


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.floats(1e-4, 1.0), min_size=2, max_size=12),
    st.floats(0.01, 0.99),
)
def test_true_epsilon_is_the_max_column_ratio(w: list[float], p: float) -> None:
    t = np.array(w) / sum(w)
    got = table_epsilon(t[None], Layout((t.size,)), p)[0]
    assert got == pytest.approx(local_epsilon(implied_matrix(t, p)), rel=1e-9)
    assert got >= paper_epsilon(p)  # never below the paper's figure for >= 2 cells


def test_design_note_5_example_and_edges() -> None:
    lay = Layout((4, 1, 2))
    tabs = np.array([[0.25] * 4, [1.0, 0, 0, 0], [0.5, 0.5, 0, 0]])
    eps = table_epsilon(tabs, lay, 0.5)
    assert eps[0] == pytest.approx(math.log(5)) and eps[1] == 0.0  # one cell: nothing to hide
    assert paper_epsilon(0.5) == pytest.approx(math.log(2))
    assert table_epsilon(np.array([[0.5, 0.5, 0.0, 0.0]]), Layout((4,)), 0.5)[0] == math.inf
    assert table_epsilon(tabs, lay, 1.0)[0] == math.inf
    # views compose: 2 x 2 uniform and the 2-cell table in one view
    assert view_epsilon(eps, np.array([[0, 2], [1, -1]])).tolist() == pytest.approx(
        [math.log(5) + math.log(3), 0.0]
    )
    # a floor f caps one subset's epsilon at ln(1 + p / ((1 - p) f))
    assert epsilon_cap(0.01, 0.5) == pytest.approx(math.log(101))


