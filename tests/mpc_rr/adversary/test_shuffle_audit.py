"""The shuffled-output audit: never above the accountant's claim, and it catches both planted failures."""

from __future__ import annotations

import pytest

from mpc_rr.adversary import audit_shuffle
from mpc_rr.core import UsageError


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("eps0", "n"), [(1.0, 30), (4.0, 300), (2.0, 3000)])
def test_accountant_is_never_below_the_audit(seed: int, eps0: float, n: int) -> None:
    a = audit_shuffle(eps0, n, trials=40_000, seed=seed)
    assert not a.violation, a.to_json()
    assert 0.0 <= a.epsilon_lower <= a.epsilon_claimed


def test_the_audit_is_not_vacuous_for_few_parties() -> None:
    # with n = 10 the multiset barely hides party 1: the bound reaches most of eps0 = claim
    a = audit_shuffle(2.0, 10, trials=100_000, seed=1)
    assert a.epsilon_lower > 1.5 and not a.violation


def test_a_channel_leaking_the_sender_is_caught() -> None:
    a = audit_shuffle(4.0, 10_000, channel="leaky", trials=100_000, seed=2)
    assert a.violation and a.epsilon_lower > 2 * a.epsilon_claimed


def test_a_randomizer_weaker_than_declared_is_caught() -> None:
    a = audit_shuffle(1.0, 100, actual_epsilon0=4.0, trials=100_000, seed=3)
    assert a.violation and a.epsilon_lower > a.epsilon_claimed + 1.0


def test_bad_channel_refused() -> None:
    with pytest.raises(UsageError, match="channel"):
        audit_shuffle(1.0, 10, channel="pigeon")


@pytest.mark.parametrize(("eps0", "n", "k"), [(2.0, 10, 3), (3.0, 200, 5), (4.0, 50, 84)])
def test_krr_claim_with_its_clone_weight_is_never_below_the_audit(eps0: float, n: int, k: int) -> None:
    # the k-RR clone weight 2/(e^eps0+1) claims less than the generic bound: the audit of shuffled
    # k-RR itself must still stay below it, and come close when few parties hide the sender
    a = audit_shuffle(eps0, n, trials=60_000, seed=4, k=k)
    assert "k-RR" in a.bound and a.k == k
    assert not a.violation, a.to_json()
    if n == 10:
        assert a.epsilon_lower > 0.5 * a.epsilon_claimed


def test_krr_leaky_channel_is_caught() -> None:
    a = audit_shuffle(4.0, 5000, channel="leaky", trials=60_000, seed=5, k=4)
    assert a.violation
