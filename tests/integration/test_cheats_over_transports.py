"""Every cheat of the adversary module over the memory transport's parties and over TCP + TLS on
loopback: the same detection and culprits as the harness, nothing recovered, no honest party named."""

from __future__ import annotations

import pytest

from mpc_rr.adversary.active import CheatReport, cheat, cheat_strategies, prio3_cheat
from mpc_rr.core import UsageError
from parties.runners import runner_for

STRATEGIES = cheat_strategies()
# TCP in one process: -m slow (1-8 s each); the default tier plays key-substitution over TCP with
# one process per party (tests/integration/test_cheating_hub.py)
TCP_DEFAULT: tuple[str, ...] = ()


def _caught(rep: CheatReport, cheater: int) -> None:
    assert rep.detected and rep.culprits == (cheater,) and rep.honest_blamed == ()
    assert rep.inputs_recovered == 0


def _play(strategy: str, transport: str, broken: bool = False) -> CheatReport:
    return cheat(strategy, trials=1, seed=1, broken=broken, runner=runner_for(transport, step_timeout=2.0))


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_every_secagg_cheat_is_caught_over_the_memory_transport(strategy: str) -> None:
    rep = _play(strategy, "memory")
    _caught(rep, 0 if STRATEGIES[strategy] == "server" else 3)
    assert rep.wrong_totals == (10 if strategy == "different-aggregates" else 0)  # moved, and attributable


@pytest.mark.parametrize("strategy", ["key-substitution", "equivocate"])
def test_the_attacks_work_over_the_memory_transport_against_the_broken_variant(strategy: str) -> None:
    rep = _play(strategy, "memory", broken=True)
    assert rep.inputs_recovered > 0 and not rep.detected


@pytest.mark.parametrize("strategy", [pytest.param(s, marks=() if s in TCP_DEFAULT else pytest.mark.slow)
                                      for s in sorted(STRATEGIES)])  # fmt: skip
def test_every_secagg_cheat_is_caught_over_tcp(strategy: str) -> None:
    _caught(_play(strategy, "tcp"), 0 if STRATEGIES[strategy] == "server" else 3)


@pytest.mark.parametrize("transport", ["memory", "tcp"])
def test_a_prio3_leader_is_stopped_over_transports(transport: str) -> None:
    forge = prio3_cheat("forge-shares", broken=False, trials=1, runner=runner_for(transport, step_timeout=2.0))
    _caught(forge, 0)
    isolate = prio3_cheat("isolate", broken=False, trials=1, runner=runner_for(transport, step_timeout=2.0))
    assert isolate.detected and isolate.inputs_recovered == 0 and isolate.culprits == ()


def test_a_runner_that_builds_roles_in_workers_is_refused() -> None:
    with pytest.raises(UsageError, match="in this process"):
        cheat("equivocate", trials=1, runner=runner_for("sharded", workers=2))
