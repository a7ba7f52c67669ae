"""A cheating SecAgg+ server as the pipeline's secure-sum dependence: it reads every party's
dependence input through the broken variant, and the pipeline's own parties catch and name it."""

from __future__ import annotations

import pytest

from mpc_rr.adversary import pipeline_cheat, rrba_cheat
from mpc_rr.core import UsageError, protocol_names


def test_key_substitution_through_the_pipeline() -> None:
    broken = pipeline_cheat("key-substitution", broken=True, trials=1, seed=3)
    assert broken["inputs_recovered"] == broken["inputs_total"] == 20 and broken["detections"] == 0
    ours = pipeline_cheat("key-substitution", broken=False, trials=1, seed=3)
    assert ours["detected"] and ours["culprits"] == [0] and ours["inputs_recovered"] == 0
    assert "secagg-cheat" not in protocol_names()  # registered for the run only


def test_equivocation_through_the_pipeline_is_named_and_unknown_strategies_refused() -> None:
    ours = pipeline_cheat("equivocate", broken=False, trials=1, seed=3)
    assert ours["detected"] and ours["culprits"] == [0] and ours["inputs_recovered"] == 0
    with pytest.raises(UsageError, match="key-substitution"):
        pipeline_cheat("replay", broken=False)


def test_key_substitution_through_rrbas_secure_tally() -> None:
    """Every block's tally is a SecAgg+ run whose server cheats: the broken variant leaks each
    client's tally vector; ours ends each block's tally naming the aggregator, nothing leaks."""
    broken = rrba_cheat("key-substitution", broken=True, n=20, trials=1, seed=3)
    assert broken["inputs_recovered"] == broken["inputs_total"] == 20 and broken["detections"] == 0
    ours = rrba_cheat("key-substitution", broken=False, n=20, trials=1, seed=3)
    assert ours["detected"] and ours["culprits"] == [0] and ours["inputs_recovered"] == 0
