"""Poisoning the pipeline's dependence: SecAgg+ adds an out-of-range vector, prio3 rejects it;
valid chosen inputs move both alike (no validity proof can refuse them)."""

from __future__ import annotations

import functools

import pytest

from mpc_rr.adversary.active import poison_dependence
from mpc_rr.data import Dataset, load_adult


@functools.cache
def _adult() -> Dataset:
    return load_adult()


def test_prio3_stops_an_out_of_range_dependence_that_secagg_adds() -> None:
    kw = {"parties": 12, "malicious": 2, "strategy": "out-of-range", "seed": 3}
    secagg = poison_dependence("secagg", _adult(), **kw)  # type: ignore[arg-type]
    prio3 = poison_dependence("prio3", _adult(), **kw)  # type: ignore[arg-type]
    assert secagg.rejected == () and not secagg.exact_over_valid  # added, undetected
    assert secagg.dependence_attacked != pytest.approx(secagg.dependence_honest)
    assert prio3.rejected == (11, 12) and prio3.exact_over_valid  # rejected and named
    assert prio3.to_json()["rejected"] == {"count": 2, "ids": [11, 12]}


def test_valid_chosen_inputs_move_both_sums_alike() -> None:
    kw = {"parties": 12, "malicious": 3, "strategy": "chosen", "seed": 4}
    secagg = poison_dependence("secagg", _adult(), **kw)  # type: ignore[arg-type]
    prio3 = poison_dependence("prio3", _adult(), **kw)  # type: ignore[arg-type]
    assert prio3.rejected == () and prio3.exact_over_valid and secagg.exact_over_valid
    assert prio3.dependence_attacked == pytest.approx(secagg.dependence_attacked)
    assert prio3.dependence_attacked != pytest.approx(prio3.dependence_honest)  # moved, within the bound
    assert "3 counts per pair table" in prio3.bound
