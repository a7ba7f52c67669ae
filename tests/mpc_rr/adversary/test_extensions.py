"""The adversary module's registry of attacks per protocol: filled by the module itself, its lists
import-light and equal to the active modules' own, and open to a test's or a plug-in's protocol."""

from __future__ import annotations

import pytest

from mpc_rr.adversary import Cheats, attacked, attacks_for, register_attacks, unregister_attacks
from mpc_rr.adversary._extensions import _MESH_CHEATS, _PRIO3_CHEATS, _SECAGG_CHEATS
from mpc_rr.core import UsageError, protocol_names
from mpc_rr.secure_sum import sum_protocol_names


def test_the_light_strategy_lists_are_the_active_modules_own() -> None:
    from mpc_rr.adversary.active import cheat_strategies
    from mpc_rr.adversary.active._cheat_through import PIPELINE_CHEATS
    from mpc_rr.adversary.active._mesh_cheat_runs import MESH_CHEATS
    from mpc_rr.adversary.active._prio3_cheats import PRIO3_CHEATS

    assert _SECAGG_CHEATS == tuple(cheat_strategies()) == tuple(PIPELINE_CHEATS)
    assert set(_MESH_CHEATS) == set(MESH_CHEATS) and set(_PRIO3_CHEATS) == set(PRIO3_CHEATS)


def test_every_part_is_registered_for_protocols_of_the_registry() -> None:
    # every protocol but the reference without privacy has its cheats
    assert set(protocol_names()) - set(attacked("cheats")) == {"plainsum"}
    assert set(attacked("poison")) <= set(sum_protocol_names())
    assert set(attacked("recover")) == set(attacked("offline"))  # an offline attack needs both
    for name in attacked("coalition"):
        assert attacks_for(name).coalition is not None


def test_a_new_protocol_is_attacked_once_registered_and_forgotten_after() -> None:
    from mpc_rr.core import register_protocol, unregister_protocol
    from tests.mpc_rr.secure_sum.dealer_sum import DEALER_SUM

    def play(protocol: str, strategy: str, **kw: object) -> str:
        return f"{protocol}/{strategy}"

    register_attacks(DEALER_SUM.name, cheats=Cheats(("peek",), play), poison=("count",))
    try:
        assert DEALER_SUM.name not in attacked("cheats")  # not a registered protocol yet
        register_protocol(DEALER_SUM)
        assert DEALER_SUM.name in attacked("cheats") and DEALER_SUM.name in attacked("poison")
        cheats = attacks_for(DEALER_SUM.name).cheats
        assert cheats is not None
        assert cheats(DEALER_SUM.name, "peek", broken=False, seed=0, trials=1) == "dealer-sum/peek"
        assert cheats.strategies == ("peek",)
    finally:
        unregister_protocol(DEALER_SUM.name)
        unregister_attacks(DEALER_SUM.name)
    assert DEALER_SUM.name not in attacked("cheats") and not attacks_for(DEALER_SUM.name).has("poison")


def test_an_unknown_part_is_refused_naming_the_parts() -> None:
    with pytest.raises(UsageError, match=r"register_attacks: unknown part\(s\) spy; the parts: byzantine, cheats, coalition"):
        register_attacks("secagg", spy=print)
