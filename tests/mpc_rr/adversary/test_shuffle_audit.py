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
