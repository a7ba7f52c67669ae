"""The conformance kit's simulation checks (:mod:`mpc_rr.secure_sum.testing`).

Importing this module adds, for every registered sum protocol, the checks

* ``simulation`` -- :data:`KIT_SCHEDULES` seeded fault schedules at :data:`KIT_PARTIES` data
  parties without Byzantine parties (crashes at any point of a party's sends, drops,
  duplicates, late joins, every delivery order): not one violation of the simulator's
  invariants (:mod:`mpc_rr.simulation`); the default tier (about a second a protocol);
* ``simulation-byzantine`` -- :data:`SLOW_SCHEDULES` schedules at :data:`SLOW_PARTIES` parties,
  one of them Byzantine (its messages rewritten, or a cheating party 0): the ``-m slow`` tier.

A violation fails the check with the violating seeds, the first one's shrunk schedule and the
command that replays it.
"""

from __future__ import annotations

from mpc_rr.secure_sum import SumProtocol
from mpc_rr.secure_sum.testing import KitRunner, register_check
from mpc_rr.simulation._campaign import render, simulate

__all__ = ["KIT_PARTIES", "KIT_SCHEDULES", "SLOW_PARTIES", "SLOW_SCHEDULES", "check_simulation"]

KIT_SCHEDULES = 200
KIT_PARTIES = 4
SLOW_SCHEDULES = 1000
SLOW_PARTIES = 6


def check_simulation(
    protocol: SumProtocol, runner: KitRunner | None = None, *, schedules: int = KIT_SCHEDULES,
    parties: int = KIT_PARTIES, byzantine: int = 0, seed: int = 0,
) -> None:  # fmt: skip
    """``schedules`` seeded schedules of ``protocol`` break no invariant (module docstring)."""
    campaign = simulate(protocol.name, schedules, seed=seed, parties=parties, byzantine=byzantine,
                        shrink_found=False)  # fmt: skip
    if not campaign.ok:  # shrink the first violation only (the message shows it)
        first = campaign.found[0]
        one = simulate(protocol.name, 1, seed=first.seed, parties=parties, byzantine=byzantine)
        seeds = [f.seed for f in campaign.found]
        raise AssertionError(f"{protocol.name} under simulated faults: {len(seeds)} violating seeds "
                             f"{seeds[:20]}; the first:\n{render(one)}")  # fmt: skip


register_check("simulation", check_simulation, any_runner=False)
register_check(
    "simulation-byzantine",
    lambda protocol, runner: check_simulation(protocol, schedules=SLOW_SCHEDULES, parties=SLOW_PARTIES, byzantine=1),
    any_runner=False,
    slow=True,
)
