"""PLD composition (dp-accounting) and the ledger: agreement with the accountant's own answers."""

from __future__ import annotations

import math

import pytest
from dp_accounting.pld import privacy_loss_distribution as pld_lib

from mpc_rr.core import UsageError
from mpc_rr.privacy import (
    Assumption,
    Mechanism,
    PhaseSpec,
    Release,
    build_ledger,
    compose,
    epsilon_for_delta,
    mechanism_pld,
    numerical_epsilon,
)


def test_shuffled_pld_agrees_with_the_numerical_bound() -> None:
    for e0, n, k in [(4.0, 10**5, None), (2.0, 10**4, 4), (3.0, 50, None)]:
        eps = epsilon_for_delta(mechanism_pld(Mechanism(e0, n, True, k)), 1e-6)
        ref = numerical_epsilon(e0, n, 1e-6, k=k).central_epsilon
        assert ref - 1e-6 <= eps <= ref + 2e-3  # pessimistic: never below


def test_direct_krr_composition_equals_dp_accountings_randomized_response() -> None:
    eps0, k, times = 1.5, 3, 5
    ours = epsilon_for_delta(compose([Mechanism(eps0, 100, False, k)] * times), 1e-6)
    keep = math.expm1(eps0) / (math.expm1(eps0) + k)
    theirs = pld_lib.from_randomized_response(1 - keep, k, value_discretization_interval=1e-3)
    assert ours == pytest.approx(theirs.self_compose(times).get_epsilon_for_delta(1e-6), abs=1e-9)


def test_composition_of_two_shuffled_releases_equals_the_plds_own_composition() -> None:
    a, b = Mechanism(2.0, 5000, True, 4), Mechanism(3.0, 5000, True, None)
    ours = epsilon_for_delta(compose([a, b, a]), 1e-6)
    theirs = mechanism_pld(a).self_compose(2).compose(mechanism_pld(b)).get_epsilon_for_delta(1e-6)
    assert ours == pytest.approx(theirs, abs=1e-9)
    # and composition costs: more than one release, less than the sum of the three
    one = numerical_epsilon(3.0, 5000, 1e-6).central_epsilon
    assert one < ours < 2 * numerical_epsilon(2.0, 5000, 1e-6, k=4).central_epsilon + one + 3e-3


def test_direct_channel_reports_no_amplification() -> None:
    led = build_ledger([PhaseSpec("release", "direct", 10**6, (Release(2.0, 4), Release(1.0)))])
    (entry,) = led.entries
    assert entry.central_epsilon == pytest.approx(3.0) and entry.delta == 0.0
    assert entry.bound.startswith("none: direct channel")
    assert led.total.central_epsilon == pytest.approx(3.0)


def test_exact_counts_have_no_central_guarantee_and_neither_has_the_total() -> None:
    led = build_ledger([
        PhaseSpec("dependence", "secure-sum", 1000, (), not_dp="exact counts published"),
        PhaseSpec("release", "direct", 1000, (Release(2.0),)),
    ])  # fmt: skip
    assert led.entries[0].central_epsilon is None
    assert led.entries[0].reason == "exact counts published"
    assert led.total.central_epsilon is None and "dependence" in (led.total.reason or "")
    assert "central none" in "\n".join(led.lines())


def test_shuffled_phase_uses_fmt_and_total_composes_with_the_direct_phase() -> None:
    dep = PhaseSpec("dependence", "secure-sum", 20000, (Release(2.0, 4),))
    rel = PhaseSpec("release", "direct", 20000, (Release(1.0, 2),))
    led = build_ledger([dep, rel], delta=1e-6)
    assert led.entries[0].central_epsilon == pytest.approx(
        numerical_epsilon(2.0, 20000, 1e-6, k=4).central_epsilon
    )
    tot = led.total.central_epsilon
    assert tot is not None and led.entries[0].central_epsilon < tot <= 1.0 + led.entries[0].central_epsilon + 3e-3
    doc = led.to_json()
    assert doc["total"]["local_epsilon"] == pytest.approx(3.0)  # type: ignore[index]


def test_bad_channel_refused() -> None:
    with pytest.raises(UsageError, match="channel"):
        PhaseSpec("x", "carrier-pigeon", 10, ())


def test_colluders_leave_the_blanket_of_every_shuffled_release() -> None:
    coalition = Assumption(colluders=2000, fraction=0.1, bound=2000, channel="test channel")
    honest = build_ledger([PhaseSpec("dep", "secure-sum", 20000, (Release(2.0, 4),))])
    dep = PhaseSpec("dep", "secure-sum", 20000, (Release(2.0, 4),), assumption=coalition)
    led = build_ledger([dep, PhaseSpec("release", "direct", 20000, (Release(1.0, 2),))])
    entry = led.entries[0]
    # the target hides among the 18,000 reports the coalition does not know, itself included
    assert entry.honest_parties == 18000
    assert entry.central_epsilon == pytest.approx(numerical_epsilon(2.0, 18000, 1e-6, k=4).central_epsilon)
    assert entry.central_epsilon > (honest.entries[0].central_epsilon or 0.0)
    assert dep.mechanisms()[0].parties == 18000  # the composition sees the same blanket
    doc = entry.to_json()["assumption"]
    assert doc == {"colluders": 2000, "colluder_fraction": 0.1, "bound": 2000,  # type: ignore[comparison-overlap]
                   "honest": coalition.honest, "channel": "test channel", "holds": True, "violated": None}
    assert "assumes: test channel; 2000 colluding" in "\n".join(led.lines())
    # a direct phase needs no assumption: colluders change nothing there
    assert led.entries[1].central_epsilon == pytest.approx(1.0)


def test_a_coalition_beyond_the_bound_or_a_broken_assumption_gives_no_central_figure() -> None:
    over = PhaseSpec("dep", "secure-sum", 300, (Release(2.0),), assumption=Assumption(colluders=31, bound=30))
    led = build_ledger([over, PhaseSpec("release", "direct", 300, (Release(1.0),))])
    entry = led.entries[0]
    assert entry.central_epsilon is None and entry.delta is None
    assert entry.reason == ("no central guarantee: the coalition of 31 colluding clients exceeds the bound of 30 "
                            "the channel hides senders against")  # fmt: skip
    assert entry.to_json()["assumption"]["holds"] is False  # type: ignore[index]
    assert led.total.central_epsilon is None and "exceeds the bound" in (led.total.reason or "")
    assert "no central guarantee: the coalition of 31" in led.lines()[1]
    at = PhaseSpec("dep", "secure-sum", 300, (Release(2.0),), assumption=Assumption(colluders=30, bound=30))
    assert build_ledger([at]).entries[0].central_epsilon is not None  # at the bound: still a figure
    broken = PhaseSpec("dep", "anonymous", 300, (Release(2.0),),
                       assumption=Assumption(violated="the channel's anonymity was not measured"))  # fmt: skip
    assert build_ledger([broken]).entries[0].reason == (
        "no central guarantee: the channel's anonymity was not measured")
    with pytest.raises(UsageError, match="colluders"):
        Assumption(colluders=-1)
