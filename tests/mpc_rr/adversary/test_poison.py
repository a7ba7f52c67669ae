"""Poisoning: out-of-range reports move a SecAgg+ count arbitrarily, prio3 rejects and names them;
valid chosen reports and skipped randomization stay within their bounds under both."""

from __future__ import annotations

import pytest

from mpc_rr.adversary.active import poison_attack
from mpc_rr.core import UsageError


def test_out_of_range_moves_secagg_arbitrarily() -> None:
    r = poison_attack(
        "secagg", parties=12, cells=6, malicious=2, strategy="out-of-range", boost=1000, seed=3
    )
    assert r.rejected == ()
    assert r.target_shift == 2000 and r.count_released == r.count_honest + 2000
    assert r.bound == float("inf")


def test_out_of_range_is_rejected_and_named_by_prio3() -> None:
    r = poison_attack("prio3", parties=12, cells=6, malicious=2, strategy="out-of-range", seed=3)
    assert r.rejected == (11, 12) == r.malicious
    assert r.target_shift <= 0  # at most their own honest contributions are lost
    assert r.bound == 2


@pytest.mark.parametrize("protocol", ["secagg", "prio3"])
def test_chosen_valid_inputs_move_a_count_by_at_most_m(protocol: str) -> None:
    r = poison_attack(protocol, parties=12, cells=6, malicious=3, strategy="chosen", seed=5)
    assert r.rejected == ()
    assert 0 <= r.target_shift <= r.bound == 3


def test_skipping_randomization_buys_the_kRR_factor() -> None:
    r = poison_attack(
        "prio3", parties=12, cells=4, malicious=3, strategy="skip-rr", keep=0.5, seed=2
    )
    assert r.rejected == ()
    p, q = 0.5 + 0.5 / 4, 0.5 / 4
    # every fake report counts 1 / (p - q) = 2 true ones in the estimate; the shift is that
    # times the reports moved onto the target
    assert r.estimate_released is not None and r.estimate_honest is not None
    assert r.target_shift == pytest.approx((r.count_released - r.count_honest) / (p - q))
    assert r.bound == pytest.approx(3 / (p - q))
    assert r.target_shift <= r.bound + 1e-9


def test_poison_refuses_bad_arguments() -> None:
    with pytest.raises(UsageError, match="malicious"):
        poison_attack("prio3", parties=5, cells=4, malicious=5, strategy="chosen")
    with pytest.raises(UsageError, match="strategy"):
        poison_attack("prio3", parties=5, cells=4, malicious=1, strategy="bribe")
