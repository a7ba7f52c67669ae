"""The eavesdropper on real runs: who and when, sizes and timing at the baseline on the real
protocols (planted variable-length encoding and delays detected), plaintext payloads, offline."""

from __future__ import annotations

import msgspec
import numpy as np
import pytest

from mpc_rr.adversary import bayes_inference, size_leakage, timing_leakage
from mpc_rr.adversary._eavesdrop import on_link, participation, size_census
from mpc_rr.adversary._inference import pipeline_observations
from mpc_rr.core import Transcript
from mpc_rr.core._views import observe
from mpc_rr.workflows import observed_run
from mpc_rr.workflows._attack_reports import eavesdrop_report
from scenarios.workloads.networks import network_for

RNG = np.random.default_rng


@pytest.mark.parametrize("protocol", ["secagg", "full-mesh-board", "pipeline"])
def test_real_runs_over_memory_have_fixed_sizes(protocol):
    run = observed_run(protocol, network=network_for("memory"), parties=60, cells=4, seed=1)
    assert size_census(run.tap, run.data_parties).constant
    rep = eavesdrop_report(run, RNG(2), permutations=50)
    assert rep["size"]["mutual_information_bits"] == 0.0 and not rep["size"]["leaks"]
    assert rep["size"]["success"] == rep["size"]["baseline"]
    assert rep["participation"]["data_parties_seen"] == 60
    assert rep["plaintext_payloads"] > 0


def test_secagg_over_tls_sizes_and_timing_do_not_leak_and_payloads_are_unreadable():
    run = observed_run("secagg", network=network_for("tcp"), parties=40, cells=2, seed=2)
    # real send times and TLS signatures differ run to run: test at 99.9 % so that the
    # no-leak assertion fails by chance at most once in a thousand runs per metric
    rep = eavesdrop_report(run, RNG(3), permutations=2000, confidence=0.999)
    assert rep["content"] is None and rep["plaintext_payloads"] == 0
    assert not rep["size"]["leaks"] and not rep["timing"]["leaks"]
    assert rep["headline"] == "size"
    # a planted delay proportional to the private value, added to the real TLS trace
    delayed = Transcript("tcp wire beneath TLS (planted delays)")
    for e in run.tap:
        shift = 10.0 * run.cells.get(e.src, 0)
        delayed.append(msgspec.structs.replace(e, time=e.time + shift))
    found = timing_leakage(delayed, run.cells, RNG(4), permutations=100)
    # not a perfect score: of 8 quantile bins over 21 + 19 parties one straddles the planted
    # gap, and 5-fold cross-validation of each bin's majority loses a few more; with the
    # within-class order of real send times random, 200 simulated orders scored 0.875-0.975
    # (5 % of them <= 0.9, which made a 0.9 bound flaky); the baseline is ~0.5
    assert found.leaks and found.success >= 0.8


@pytest.mark.parametrize(
    "transport",
    # over TCP the hub coalesces queued frames into one TLS record, more so on a loaded
    # machine, which blurs sizes: the TCP case runs in the slow tier
    ["memory", pytest.param("tcp", marks=pytest.mark.slow)],
)
def test_a_planted_variable_length_encoding_is_found_on_the_wire(transport):
    honest = observed_run("plainsum", network=network_for(transport), parties=40, cells=4, seed=5)
    planted = observed_run("plainsum", network=network_for(transport), parties=40, cells=4, seed=5,
                           planted="sparse-encoding")  # fmt: skip
    assert np.array_equal(planted.roles[0].result.total, honest.roles[0].result.total)  # same sum
    # the honest run at 99.9 % (a TCP trace differs from run to run), the plant at 95 %
    ok = size_leakage(honest.tap, honest.cells, RNG(6), permutations=2000, confidence=0.999)
    bad = size_leakage(planted.tap, planted.cells, RNG(6), permutations=100)
    assert not ok.leaks
    # even beneath TLS: record lengths follow the payload (the TLS handshake adds public noise)
    assert bad.leaks and bad.success > bad.baseline + 0.4
    assert not size_census(planted.tap, planted.data_parties).constant


def test_payloads_over_a_plaintext_hub():
    plain = eavesdrop_report(observed_run("plainsum", network=network_for("memory"), parties=30, cells=8, seed=7), RNG(0),
                             permutations=0)  # fmt: skip
    assert plain["content"]["recovered"] == 30 and plain["success"] == 1.0
    mesh = eavesdrop_report(observed_run("full-mesh", network=network_for("memory"), parties=12, cells=8, seed=7), RNG(0),
                            permutations=0)  # fmt: skip
    c = mesh["content"]
    assert c["recovered"] == 0 and c["success"] == c["baseline"]  # shares are ciphertext
    clear = eavesdrop_report(observed_run("full-mesh", network=network_for("memory"), parties=12, cells=8, seed=7,
                                          planted="clear-shares"), RNG(0), permutations=0)  # fmt: skip
    assert clear["content"]["recovered"] == 12  # shares in clear: the hub sums them out
    sec = eavesdrop_report(observed_run("secagg", network=network_for("memory"), parties=30, cells=8, seed=7), RNG(0),
                           permutations=0)  # fmt: skip
    c = sec["content"]
    assert c["recovered"] == 0 and c["ci"][0] <= c["baseline"] <= c["ci"][1]
    assert any(k.endswith("/3") for k in sec["participation"]["steps"])  # steps are visible


def test_participation_dropouts_are_visible_without_cover_traffic():
    from mpc_rr.adversary import participation_leakage
    from mpc_rr.core import DropAt
    from mpc_rr.secure_sum import secure_sum_roles
    from mpc_rr.secure_sum.secagg import MaskedInput
    from mpc_rr.workflows._observed import one_hot_inputs
    from parties.runner import MemoryRunner
    from transports.tap import Tap

    x, _ = one_hot_inputs(30, 4, 8)
    roles, _ = secure_sum_roles("secagg", x, run="p", max_dropout=0.2)
    victims = [3, 11, 17, 25]
    for v in victims:
        roles[v] = DropAt(roles[v], MaskedInput)
    tap = Tap()
    MemoryRunner(step_timeout=5.0, tap=tap)(roles)
    took = sorted(roles[0].result.included)
    assert set(victims).isdisjoint(took)
    res = participation_leakage(tap, list(range(1, 31)), took, RNG(9), permutations=100)
    assert res.leaks and res.success == 1.0
    part = participation(tap)
    assert all(part.messages[v] < part.messages[1] for v in victims)
    link = on_link(tap, 3)
    assert {e.src for e in link} <= {0, 3} and len(link) > 0


def test_pipeline_records_read_in_plaintext_and_the_planted_raw_record():
    run = observed_run("pipeline", network=network_for("harness"), parties=300, seed=12, p=0.5)
    ids, obs = pipeline_observations(observe(run.tap, run.message_types), run.public["pipeline"])
    assert ids == run.data_parties and len(obs) == 8 + len(run.roles[0].result.clustering.clusters)
    inf = bayes_inference(obs, run.public["pipeline"].sizes, run.records, names=run.names)
    assert inf.leaks and inf.baseline < inf.success < 1.0
    raw = observed_run("pipeline", network=network_for("harness"), parties=300, seed=12, p=0.5,
                       planted="raw-record")  # fmt: skip
    ids, obs = pipeline_observations(observe(raw.tap, raw.message_types), raw.public["pipeline"])
    # the attacker still believes the declared mechanism; the unrandomized record shows anyway
    leaked = bayes_inference(obs, raw.public["pipeline"].sizes, raw.records)
    assert leaked.success > inf.success + 0.05 and leaked.ci[0] > inf.ci[1]


def test_rrba_answers_read_in_plaintext_on_a_real_run():
    run = observed_run("rrba", network=network_for("memory"), parties=600, block=100, p=0.5, seed=13)
    rep = eavesdrop_report(run, RNG(14), permutations=50)
    c = rep["content"]
    assert c["groups"] > 1 and c["ci"][0] > c["baseline"]
    assert rep["size_census"]["constant"] and not rep["size"]["leaks"]  # Survey: every cell < 128
    flat = eavesdrop_report(
        observed_run("rrba", network=network_for("memory"), parties=600, block=100, p=1e-9, seed=13),
        RNG(14), permutations=0,
    )["content"]  # fmt: skip
    assert flat["ci"][0] <= flat["baseline"] <= flat["ci"][1]
    assert all(s == pytest.approx(b) for s, b in zip(flat["success_per_attribute"],
                                                     flat["baseline_per_attribute"], strict=True))  # fmt: skip


def test_rrba_answer_sizes_do_not_depend_on_the_cells():
    """Answer.cells travel as a fixed-width <u4 array.  Before, as MessagePack ints, a cell
    >= 128 took a byte more, so on Adult (education x occupation has 240 cells) the size told
    the reported cell's range: permutation p < 0.01, mutual information > 0.05 (this test)."""
    run = observed_run("rrba", network=network_for("memory"), parties=1400, block=200, p=0.5, seed=15, data="adult")
    asked = [i for i in run.data_parties if (1, 3) in run.roles[i].result.subsets]
    rec = run.records
    big = {i: int(rec[i - 1, 1] * 15 + rec[i - 1, 3] >= 128) for i in asked}
    res = size_leakage(run.tap, big, RNG(16), permutations=200)
    assert res.permutation_p > 0.05 and res.mutual_information < 0.01, res


def test_rrba_secure_tally_leaves_no_answer_to_read():
    # blocks of 50 over 150 parties (300 in blocks of 100 took 11.6 s under load)
    run = observed_run("rrba", network=network_for("memory"), parties=150, block=50, p=0.5, seed=17,
                       secure_tally=True)  # fmt: skip
    rep = eavesdrop_report(run, RNG(18), permutations=0)
    assert rep["content"] is None and rep["plaintext_payloads"] > 0
    assert rep["size_census"]["constant"]


@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["plainsum", "full-mesh-board", "secagg", "pipeline"])
def test_every_protocol_over_tls_at_200_parties_keeps_sizes_and_timing_at_the_baseline(protocol):
    run = observed_run(protocol, network=network_for("tcp"), parties=200, cells=16, seed=21)
    rep = eavesdrop_report(run, RNG(22), permutations=2000, confidence=0.999)
    assert not rep["size"]["leaks"] and not rep["timing"]["leaks"]
    assert rep["content"] is None and rep["participation"]["data_parties_seen"] == 200
