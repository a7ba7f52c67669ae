"""The pipeline's and RRBA's ledgers: which channel each phase uses and what it licenses."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mpc_rr.core import UsageError
from mpc_rr.data import Attribute, Dataset, Schema
from mpc_rr.pipeline import PipelineConfig
from mpc_rr.privacy import numerical_epsilon
from mpc_rr.workflows import rrba_crowds
from mpc_rr.workflows._privacy import pipeline_ledger, rrba_ledger, sum_channel

SCHEMA = Schema((Attribute("a", ("x", "y")), Attribute("b", ("x", "y", "z")), Attribute("c", ("x", "y"))))


def _cfg(dependence: str, sum_protocol: str = "secagg") -> PipelineConfig:
    return PipelineConfig(schema=SCHEMA, n=5000, p=0.5, dependence=dependence,
                          coordinator_key=b"k" * 32, sum_protocol=sum_protocol)  # fmt: skip


CLUSTERS = ((0, 1), (2,))


def test_rr_dependence_is_direct_and_amplifies_nothing() -> None:
    led, _ = pipeline_ledger(_cfg("rr"), CLUSTERS, parties_dependence=5000, parties_release=5000)
    dep, rel = led.entries
    assert dep.channel == "direct" and dep.central_epsilon == pytest.approx(dep.local_epsilon)
    assert led.total.central_epsilon == pytest.approx(dep.local_epsilon + rel.local_epsilon)


def test_exact_counts_give_no_central_figure() -> None:
    led, _ = pipeline_ledger(_cfg("secure-sum"), CLUSTERS, parties_dependence=5000, parties_release=5000)
    assert led.entries[0].central_epsilon is None and "exact" in (led.entries[0].reason or "")
    assert led.total.central_epsilon is None


def test_pairwise_rr_through_a_secure_sum_is_amplified_and_composed() -> None:
    cfg = _cfg("pairwise-rr")
    led, _ = pipeline_ledger(cfg, CLUSTERS, parties_dependence=5000, parties_release=5000)
    dep = led.entries[0]
    assert dep.channel == "secure-sum" and dep.releases == 3
    pairs = cfg.pair_mechanisms()
    # composition costs more than the weakest pair alone, less than the local sum
    worst = max(numerical_epsilon(m.epsilon, 5000, 1e-6, k=k).central_epsilon
                for m, k in zip(pairs, (6, 4, 6), strict=True))  # fmt: skip
    assert dep.central_epsilon is not None and worst < dep.central_epsilon < dep.local_epsilon
    assert dep.paper_epsilon == pytest.approx(max(m.epsilon for m in pairs))


def test_the_dependence_sum_is_read_for_its_honest_parties_under_the_protocols_coalition() -> None:
    cfg = _cfg("pairwise-rr")
    led, _ = pipeline_ledger(cfg, CLUSTERS, parties_dependence=4000, parties_release=4000)
    nobody, _ = pipeline_ledger(cfg, CLUSTERS, parties_dependence=4000, parties_release=4000, max_corrupt=0.0)
    dep = led.entries[0]
    # SecAgg+'s default max_corrupt 0.1 of the roster of 5000: 500 colluders, out of the 4000 that
    # completed the sum (not the planned 5000)
    assert dep.assumption is not None and dep.assumption.colluders == 500 and dep.assumption.bound == 500
    assert dep.honest_parties == 3500 and nobody.entries[0].honest_parties == 4000
    assert dep.central_epsilon is not None and nobody.entries[0].central_epsilon is not None
    assert dep.central_epsilon > nobody.entries[0].central_epsilon
    assert "SecAgg+" in dep.assumption.channel and "public randomness" in dep.assumption.channel
    # the release is direct: the coalition changes nothing there
    assert led.entries[1].central_epsilon == pytest.approx(nobody.entries[1].central_epsilon)
    doc = led.to_json()
    assert doc["phases"][0]["assumption"]["colluders"] == 500  # type: ignore[index]
    assert doc["total"]["assumption"]["colluders"] == 500  # type: ignore[index]


def test_prio3_is_its_own_channel_with_the_two_aggregators_assumption() -> None:
    led, _ = pipeline_ledger(_cfg("pairwise-rr", "prio3"), CLUSTERS, parties_dependence=5000,
                             parties_release=5000)  # fmt: skip
    dep = led.entries[0]
    assert dep.channel == "prio3" and dep.assumption is not None
    assert "two aggregators do not collude" in dep.assumption.channel
    assert dep.assumption.colluders == 500 and dep.assumption.bound == 2498  # min_batch 2500 - 2
    beyond, _ = pipeline_ledger(_cfg("pairwise-rr", "prio3"), CLUSTERS, parties_dependence=5000,
                                parties_release=5000, max_corrupt=0.6)  # fmt: skip
    assert beyond.entries[0].central_epsilon is None
    assert (beyond.entries[0].reason or "").startswith("no central guarantee: the coalition of 3000")


def test_each_phase_states_its_input_validity_from_its_protocol() -> None:
    from mpc_rr.workflows._validity import pipeline_validity

    prio3 = pipeline_validity(_cfg("pairwise-rr", "prio3"))
    assert prio3[0] == {"phase": "dependence (4.3 pairs)", "protocol": "prio3", "validity":
                        "one one-hot block per attribute pair (3 pairs), proved; a report that fails is "
                        "rejected and its client named"}  # fmt: skip
    assert pipeline_validity(_cfg("secure-sum"))[0]["validity"] == "none: one client can set any count"
    assert pipeline_validity(_cfg("pairwise-rr", "plainsum"))[0]["validity"] == "none: one client can set any count"
    rr = pipeline_validity(_cfg("rr"))
    assert rr[0]["protocol"] is None and "range-checked" in rr[0]["validity"] and rr[1]["phase"] == "release (clusters)"


def test_plainsum_is_a_direct_channel() -> None:
    assert sum_channel("plainsum") == "direct" and sum_channel("secagg") == "secure-sum"
    led, _ = pipeline_ledger(_cfg("pairwise-rr", "plainsum"), CLUSTERS, parties_dependence=5000,
                             parties_release=5000)  # fmt: skip
    assert led.entries[0].channel == "direct"
    assert led.entries[0].central_epsilon == pytest.approx(led.entries[0].local_epsilon)


def test_rrba_secure_tally_amplifies_over_each_tables_crowd_and_infinite_is_none() -> None:
    direct, _ = rrba_ledger(epsilon_tables=[1.0, 2.0], paper_epsilon=0.5, view_len=2, crowds=[500, 500],
                            secure_tally=False)  # fmt: skip
    assert direct.total.central_epsilon == pytest.approx(3.0)
    tally, _ = rrba_ledger(epsilon_tables=[1.0, 2.0], paper_epsilon=0.5, view_len=2, crowds=[50_000, 50_000],
                           secure_tally=True)  # fmt: skip
    assert tally.total.central_epsilon is not None and tally.total.central_epsilon < 0.5
    # each table is amplified over its own crowd: a small crowd on the strong table costs more
    small, _ = rrba_ledger(epsilon_tables=[1.0, 2.0], paper_epsilon=0.5, view_len=2, crowds=[50_000, 200],
                           secure_tally=True)  # fmt: skip
    assert small.entries[0].parties == 200
    assert tally.total.central_epsilon < small.total.central_epsilon < 3.0
    inf, _ = rrba_ledger(epsilon_tables=[math.inf], paper_epsilon=0.5, view_len=1, crowds=[10],
                         secure_tally=True)  # fmt: skip
    assert inf.total.central_epsilon is None and "infinite" in (inf.total.reason or "")
    with pytest.raises(UsageError, match="crowds"):
        rrba_ledger(epsilon_tables=[1.0], paper_epsilon=0.5, view_len=1, crowds=[], secure_tally=True)


def test_rrba_crowds_are_the_fewest_answers_a_block_gave_each_table() -> None:
    # cumulative answers per block (rows) and table (columns); table 2 never answered
    tuples = np.array([[40, 10, 0], [90, 10, 0], [95, 30, 0]])
    assert rrba_crowds(tuples).tolist() == [5, 10, 0]
    assert rrba_crowds(np.zeros((0, 2), np.int64)).tolist() == [0, 0]


def test_rrba_run_ledger_uses_the_crowds_of_the_secure_tally() -> None:
    from mpc_rr.rrba import run_rrba
    from mpc_rr.workflows._rrba import summarize

    rng = np.random.default_rng(5)
    data = Dataset(SCHEMA, rng.integers(0, [2, 3, 2], size=(900, 3)))
    run = run_rrba(data, p=0.6, block=300, k=2, seed=3)
    doc = summarize(run, data, "test", {}, secure_tally=True)
    phase = doc["privacy"]["phases"][0]
    assert phase["channel"] == "secure-sum" and run.cover.n_views > 1
    # the crowd is what a block's tally mixed for the worst view's tables: no more than the
    # block, and the fewest answers of those tables in any block
    views = [[int(s) for s in row if s >= 0] for row in np.asarray(run.cover.padded_tables())]
    crowds = rrba_crowds(run.tuples)
    assert min(int(crowds[s]) for v in views for s in v) <= phase["parties"] <= 300
    assert phase["parties"] in {int(crowds[s]) for v in views for s in v}
    # each block's tally is its own SecAgg+ run among the block's 300 clients: 30 may collude
    assert phase["assumption"]["colluders"] == 30 and phase["honest_parties"] == phase["parties"] - 30
    assert doc["validity"] == [{"phase": "rrba answers", "protocol": "secagg", "validity": (
        "none: one client can set any count; the aggregator checks each table's total in the block "
        "(a mismatch loses the block, its sender unnamed)")}]
    direct = summarize(run, data, "test", {}, secure_tally=False)
    assert direct["validity"][0]["protocol"] is None and "range-checked" in direct["validity"][0]["validity"]
