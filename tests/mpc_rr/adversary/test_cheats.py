"""Every cheat succeeds against its broken variant and is caught, its author named, against ours."""

from __future__ import annotations

import pytest

from mpc_rr.adversary.active import cheat, cheat_strategies
from mpc_rr.core import UsageError

SERVER = [s for s, side in cheat_strategies().items() if side == "server"]
CLIENT = [s for s, side in cheat_strategies().items() if side == "client"]
HONEST_BLAMED = {"forged-signature", "key-reuse", "bad-shares", "claim-sender"}  # the broken variant's harm


@pytest.mark.parametrize("strategy", SERVER)
def test_a_cheating_server_learns_from_the_broken_variant_and_is_named_by_ours(strategy: str) -> None:
    broken = cheat(strategy, trials=1, seed=11, broken=True)
    assert not broken.detected
    if strategy == "different-aggregates":
        assert broken.wrong_totals > 0  # it moved half the parties' totals, unattributably
    else:
        assert broken.inputs_recovered >= 1 > broken.baseline  # exact inputs, where a guess gets ~0
    ours = cheat(strategy, trials=1, seed=11)
    assert ours.detected and ours.culprits == (0,) and ours.honest_blamed == ()
    assert ours.inputs_recovered == 0


@pytest.mark.parametrize("strategy", CLIENT)
def test_a_cheating_client_is_named_and_excluded_and_honest_parties_never_blamed(strategy: str) -> None:
    broken = cheat(strategy, trials=1, seed=5, broken=True)
    assert not broken.detected
    if strategy in HONEST_BLAMED:  # before: every honest party (the server too) was blamed, the run stopped
        assert 0 in broken.honest_blamed and broken.completed == 0
    ours = cheat(strategy, trials=1, seed=5)
    assert ours.detected and ours.culprits == (3,) and ours.honest_blamed == ()
    assert ours.completed == 1 and ours.wrong_totals == 0  # excluded, and the sum of the rest is exact


@pytest.mark.slow
@pytest.mark.parametrize("strategy", SERVER + CLIENT)
def test_detection_is_total_over_seeded_trials(strategy: str) -> None:
    rep = cheat(strategy, trials=10, seed=2024)
    assert rep.detections == 10 and rep.inputs_recovered == 0 and rep.honest_blamed == ()


def test_cheat_refuses_what_it_does_not_play() -> None:
    with pytest.raises(UsageError, match="unknown strategy 'sybil'; the strategies are: key-substitution"):
        cheat("sybil")
    with pytest.raises(UsageError, match=r"not protocol 'rrba'; mpc_rr.adversary.attacks_for\('rrba'\).cheats plays it"):
        cheat("equivocate", protocol="rrba")
    with pytest.raises(UsageError, match="not protocol 'plainsum'; choose from secagg"):
        cheat("equivocate", protocol="plainsum")
