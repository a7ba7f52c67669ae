"""What a schedule runs: one registered sum protocol (or a named broken variant) at one size.

A :class:`SimTarget` builds the roles of a run -- honest, or with the adversary module's
planted variant ``broken`` (:func:`~mpc_rr.adversary.attacks_for`), each crash of the
schedule wrapped around its party (:class:`~mpc_rr.simulation.CrashAfter`) -- and keeps
what every schedule of the same size shares: the inputs, a fault-free run's traffic
(where faults can strike) and the payloads of another run (what a Byzantine party
replays from another run).  Inputs are one-hot over ``cells`` cells; keys and masks come
from a seeded source (:class:`~mpc_rr.secure_sum.SeededEntropy`), so a schedule replays
bit for bit.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mpc_rr.adversary import attacks_for
from mpc_rr.core import COORDINATOR, Role, UsageError
from mpc_rr.secure_sum import SecureSumPlan, SeededEntropy, SumProtocol, sum_protocol
from mpc_rr.secure_sum.testing import kit_inputs
from mpc_rr.simulation._crash import CrashAfter
from mpc_rr.simulation._schedule import Cheat, Crash, Schedule, Traffic
from mpc_rr.simulation._wire import Reference

__all__ = ["SimTarget", "broken_variants", "target_for"]

CELLS = 8
"""Cells of every input: enough that a masked vector is one-hot by chance (what the recovery
attack would take for an input) with probability below ``8 / 4**8``."""


def broken_variants(protocol: str) -> tuple[str, ...]:
    """The planted variants of ``protocol`` the simulator can run (``--broken``)."""
    return tuple(sorted(attacks_for(protocol).planted()))


@dataclass
class SimTarget:
    """``protocol`` among ``parties`` data parties (``broken``: a planted variant of it)."""

    protocol: SumProtocol
    parties: int
    broken: str | None = None
    cells: int = CELLS
    traffic: Traffic | None = field(default=None, repr=False)
    other_run: Reference = field(default_factory=dict, repr=False)
    inputs: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.parties < 2:
            raise UsageError(f"parties must be >= 2, got {self.parties}")
        if self.broken is not None:
            known = broken_variants(self.protocol.name)
            if self.broken not in known:
                raise UsageError(f"{self.protocol.name} has no broken variant {self.broken!r} "
                                 f"(its variants: {', '.join(known) or 'none'})")  # fmt: skip
        self.inputs = kit_inputs(self.parties, self.cells, 0)
        self.options = self.protocol.options_for(None, self.parties, one_hot_blocks=(self.cells,))

    @property
    def ids(self) -> tuple[int, ...]:
        return tuple(range(self.protocol.first_party(), self.parties + 1))

    def honest_roles(self, seed: int, run: str) -> dict[int, Role]:
        plan = SecureSumPlan(self.protocol, self.inputs, run=run, entropy=SeededEntropy(seed).spawn,
                             options=self.options)  # fmt: skip
        roles = plan.build()
        if self.broken is not None:
            roles = dict(attacks_for(self.protocol.name).planted()[self.broken](roles, self.inputs, plan.public()))
        return roles

    @property
    def run(self) -> str:
        return f"sim-{self.protocol.name}-{self.parties}"

    @functools.cached_property
    def public_params(self) -> Any:
        """The run's public parameters (what the recovery attack is given)."""
        return self.protocol.public(self.parties, self.cells, run=self.run, max_value=1, options=self.options)

    def public(self) -> Any:
        return self.public_params

    @functools.cached_property
    def messages(self) -> int:
        """The cost model's most messages of a run whatever its faults
        (:meth:`SumProtocol.message_bound`: the fault-free count, times the attempts of a
        protocol that restarts without a culprit)."""
        return int(self.protocol.message_bound(self.parties, self.options))

    def roles(self, schedule: Schedule) -> dict[int, Role]:
        """The roles of ``schedule``'s run, its crashes wrapped around their parties."""
        roles = self.honest_roles(1, self.run)
        for cheat in schedule.of(Cheat):
            if cheat.party in schedule.byzantine:
                plant = attacks_for(self.protocol.name).cheaters()[cheat.strategy]
                roles = dict(plant(roles, self.inputs, self.public()))
        for c in schedule.of(Crash):
            if c.party in roles:
                roles[c.party] = CrashAfter(roles[c.party], c.sends)
        return roles

    @functools.cached_property
    def cheats(self) -> tuple[str, ...]:
        """The cheating roles a Byzantine party 0 may play (registered by the adversary module)."""
        return tuple(sorted(attacks_for(self.protocol.name).cheaters())) if self.protocol.coordinator else ()

    def central(self, schedule: Schedule, pid: int, role: Role) -> list[Any]:
        """Violations of an outer protocol's result against its central computation (none for
        a sum: :func:`~mpc_rr.simulation._invariants.check_result` checks its totals)."""
        return []

    def coordinator(self) -> int | None:
        return COORDINATOR if self.protocol.coordinator else None


_TARGETS: dict[tuple[str, int, str | None], SimTarget] = {}


def target_for(protocol: str | SumProtocol, parties: int, broken: str | None = None) -> SimTarget:
    """The :class:`SimTarget` of ``protocol`` at ``parties`` (built once per process: its
    fault-free traffic and other run are computed on first use)."""
    from mpc_rr.simulation._world import fault_free

    spec = sum_protocol(protocol) if isinstance(protocol, str) else protocol
    key = (spec.name, int(parties), broken)
    target = _TARGETS.get(key)
    if target is None or target.protocol is not spec:
        target = SimTarget(spec, int(parties), broken)
        target.traffic, target.other_run = fault_free(target)
        _TARGETS[key] = target
    return target


def traffic_of(links: Mapping[tuple[int, int], list[bytes]], ids: tuple[int, ...]) -> Traffic:
    sends: dict[int, int] = {}
    for (src, _), ps in links.items():
        sends[src] = sends.get(src, 0) + len(ps)
    return Traffic(ids, sends, {k: len(v) for k, v in links.items()})
