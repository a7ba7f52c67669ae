"""Deployments (``-m slow``): one process per party over TCP + TLS on loopback, one of them an
authenticated party that floods garbage frames (:mod:`scenarios.workloads.flooder`)."""

from __future__ import annotations

import statistics

import pytest

from scenarios.workloads.flooder import FLOODER, flood_trial

PARAMS = {"cells": 3_000_000, "max_dropout": 0.3}  # a run of a few seconds: the flood's cost shows


@pytest.mark.slow
def test_a_flood_is_cut_off_named_everywhere_and_costs_the_honest_parties_little() -> None:
    """Before (no budget, as ``--party-budget none`` still is): the flooder sent all 300,000
    frames, was never cut off nor named, the honest parties recorded 11,000-29,000 errors and
    took 4-7x as long as in the quiet run.  Medians of three paired runs (a shared machine is
    noisy)."""
    trials = [flood_trial("secagg", 8, params=PARAMS, timeout=120) for _ in range(3)]
    for t in trials:
        assert t["ok"], t
        assert t["flood_stopped"].startswith("cut off"), t
        assert t["named_by"] == [i for i in range(8) if i != FLOODER], t  # every honest party
        assert 0 in t["culprit_of"], t  # the hub counted the errors itself
        assert t["errors"] <= 8 * 12, t  # the garbage budget of 10 per receiver, no more
    quiet = statistics.median(t["quiet_s"] for t in trials)
    flooded = statistics.median(t["flooded_s"] for t in trials)
    assert flooded <= 1.3 * quiet, [(t["quiet_s"], t["flooded_s"]) for t in trials]


@pytest.mark.slow
def test_without_a_budget_the_flooder_is_neither_cut_off_nor_named() -> None:
    """The broken variant the budget fixes (``--party-budget none``): the same flood goes on."""
    t = flood_trial("secagg", 8, params={"cells": 1000, "max_dropout": 0.3}, party_budget="none", timeout=20)
    assert not t["flood_stopped"].startswith("cut off") and t["named_by"] == [], t
    assert t["errors"] > 8 * 12, t
