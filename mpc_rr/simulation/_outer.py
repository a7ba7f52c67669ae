"""The pipeline's secure-sum dependence and RRBA's secure tally under fault schedules.

:class:`PipelineTarget` is a :class:`~mpc_rr.simulation.SimTarget` whose roles are the
RR-Clusters pipeline's (Domingo-Ferrer & Soria-Comas, Sec. 4.2: the exact bivariate counts
through a secure sum), with ``sum_protocol`` as its inner sum: a schedule's faults strike the
pipeline's messages and the inner sum's alike (party ids and links are the pipeline's).
Besides the invariants of every run (blame, termination, typed errors, the cost model of
the fault-free run), the coordinator's dependences must be the central computation over the
parties it says the dependence phase used (``parties_dependence``): the dependence matrix of
exactly their records.  :class:`RRBATarget` runs RRBA's collection (Imran & Meo) with its
secure tally over ``sum_protocol`` the same way; its central computation is the plain tally
of the same seed, which a schedule without faults (any delivery order) must reproduce: the
same blocks and the same estimates.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from mpc_rr.core import COORDINATOR, Role, UsageError
from mpc_rr.secure_sum import SeededEntropy, SumProtocol, sum_protocol
from mpc_rr.simulation._invariants import Violation
from mpc_rr.simulation._schedule import Schedule
from mpc_rr.simulation._target import SimTarget

__all__ = ["PipelineTarget", "RRBATarget", "pipeline_target", "rrba_target"]


class _Outer(SumProtocol):
    """An outer protocol as the simulator sees it (its name, its messages, party 0 takes part)."""

    steps = ("run",)
    hides_inputs = False  # the inner sum hides the counts; what the outer protocol releases is public

    def __init__(self, name: str, inner: SumProtocol, messages: tuple[Any, ...]) -> None:
        self.name = name
        self.summary = f"{name} over {inner.name}"
        self.inner = inner
        self._messages = messages
        super().__init__()

    def check_name(self) -> None:
        return None

    def public(self, n: int, cells: int, *, run: str, max_value: int = 1, options: Any = None) -> Any:
        return None

    def role(self, *args: Any, **kwargs: Any) -> Role:
        raise UsageError("the pipeline's roles come from PipelineTarget")

    def message_types(self) -> tuple[Any, ...]:
        return self._messages

    def step_messages(self) -> Any:
        return {}

    def message_count(self, n: int, options: Any) -> int:
        return 0

    def memory_estimate(self, n: int, cells: int, options: Any) -> int:
        return 0


class PipelineTarget(SimTarget):
    """The pipeline over ``inner`` among ``parties`` data parties (module docstring)."""

    def __init__(self, inner: str, parties: int) -> None:
        from mpc_rr.data import Attribute, Schema
        from mpc_rr.pipeline import PIPELINE, PipelineConfig
        from mpc_rr.pipeline import _signing as signing
        from mpc_rr.pipeline._messages import PIPELINE_MESSAGES

        spec = sum_protocol(inner)
        if not spec.total_at_coordinator:
            raise UsageError(f"{spec.name} cannot be the pipeline's dependence sum (party 0 does not learn the total)")
        super().__init__(spec, parties)
        self.protocol = _Outer(PIPELINE.name, spec, tuple(PIPELINE_MESSAGES))
        self.inner = spec
        self.schema = Schema((Attribute("a", ("0", "1", "2")), Attribute("b", ("0", "1")), Attribute("c", ("0", "1"))))
        rng = np.random.default_rng(0)
        self.inputs = np.stack([rng.integers(0, 3, parties), rng.integers(0, 2, parties), rng.integers(0, 2, parties)], axis=1)
        self._key = signing.new_signing_key(bytes(range(32)))
        self._config_of = functools.partial(
            PipelineConfig, schema=self.schema, n=parties, p=0.8, dependence="secure-sum",
            sum_protocol=spec.name, coordinator_key=signing.public_bytes(self._key),
        )  # fmt: skip

    @property
    def run(self) -> str:
        return f"sim-pipeline-{self.inner.name}-{self.parties}"

    def honest_roles(self, seed: int, run: str) -> dict[int, Role]:
        from mpc_rr.pipeline import pipeline_roles

        return pipeline_roles(self._config_of(run=run), self.inputs, seed, self._key, sum_entropy=SeededEntropy(seed).spawn)

    @property
    def messages(self) -> int:
        """The fault-free run's messages (the pipeline states no cost model of its own; before
        that run: a bound no run reaches)."""
        return 10**6 if self.traffic is None else sum(self.traffic.links.values())

    @functools.cached_property
    def cheats(self) -> tuple[str, ...]:
        return ()

    def central(self, schedule: Schedule, pid: int, role: Role) -> list[Violation]:
        """The coordinator's dependences against the central computation over the parties it used
        (when none of them is Byzantine: a Byzantine party's counts are whatever it sent)."""
        from mpc_rr.estimation import dependence_matrix

        if pid != COORDINATOR or not role.done or role.error is not None or getattr(role, "crashed", False):
            return []
        res = role.result
        used = np.asarray(res.parties_dependence, dtype=np.int64)
        if used.size < 2 or set(used.tolist()) & set(schedule.byzantine):
            return []
        want = dependence_matrix(self.inputs[used - 1], self.schema)
        if not np.allclose(np.asarray(res.dependences), want):
            return [Violation("wrong-total", pid, f"dependences over parties {used.tolist()} are not the central "
                                                  f"computation over them")]  # fmt: skip
        return []


class RRBATarget(SimTarget):
    """RRBA with its secure tally over ``inner`` among ``parties`` clients (module docstring)."""

    def __init__(self, inner: str, parties: int) -> None:
        from mpc_rr.rrba import RRBA, RRBAConfig
        from mpc_rr.rrba._messages import RRBA_MESSAGES

        spec = sum_protocol(inner)
        if not spec.total_at_coordinator:
            raise UsageError(f"{spec.name} cannot be RRBA's secure tally (party 0 does not learn the total)")
        super().__init__(spec, parties)
        self.protocol = _Outer(RRBA.name, spec, tuple(RRBA_MESSAGES))
        self.inner = spec
        rng = np.random.default_rng(0)
        self.inputs = np.stack([rng.integers(0, 3, parties), rng.integers(0, 2, parties), rng.integers(0, 2, parties)], axis=1)
        self._config_of = functools.partial(RRBAConfig, sizes=(3, 2, 2), n_clients=parties, block=max(2, parties // 2),
                                            p=0.5, sum_protocol=spec.name)  # fmt: skip

    @property
    def run(self) -> str:
        return f"sim-rrba-{self.inner.name}-{self.parties}"

    def honest_roles(self, seed: int, run: str) -> dict[int, Role]:
        from mpc_rr.rrba import rrba_roles

        return rrba_roles(self._config_of(run=run, secure_tally=True), self.inputs, seed,
                          entropy=SeededEntropy(seed).spawn)  # fmt: skip

    @property
    def messages(self) -> int:
        """The fault-free run's messages (before that run: a bound no run reaches)."""
        return 10**6 if self.traffic is None else sum(self.traffic.links.values())

    @functools.cached_property
    def cheats(self) -> tuple[str, ...]:
        return ()

    @functools.cached_property
    def plain(self) -> Any:
        """The aggregator's result of the plain tally of the same seed (the central computation)."""
        from mpc_rr.core import HarnessRunner
        from mpc_rr.rrba import rrba_roles

        res = HarnessRunner()(rrba_roles(self._config_of(run=self.run, secure_tally=False), self.inputs, 1))
        return res.roles[COORDINATOR].result

    def central(self, schedule: Schedule, pid: int, role: Role) -> list[Violation]:
        """Without faults, the aggregator ends where the plain tally does."""
        if pid != COORDINATOR or schedule.faults or not role.done or role.error is not None:
            return []
        got, want = role.result, self.plain
        same = np.array_equal(np.asarray(got.blocks_used), np.asarray(want.blocks_used)) and all(
            np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(got.estimates, want.estimates, strict=True)
        )
        return [] if same else [Violation("wrong-total", pid, "the secure tally's estimates differ from the plain tally's")]


_TARGETS: dict[tuple[str, int], PipelineTarget] = {}
_RRBA: dict[tuple[str, int], RRBATarget] = {}


def rrba_target(inner: str, parties: int) -> RRBATarget:
    """The :class:`RRBATarget` of ``inner`` at ``parties`` (built once per process)."""
    from mpc_rr.simulation._world import fault_free

    key = (inner, int(parties))
    if key not in _RRBA:
        t = RRBATarget(inner, parties)
        t.traffic, t.other_run = fault_free(t)
        _RRBA[key] = t
    return _RRBA[key]


def pipeline_target(inner: str, parties: int) -> PipelineTarget:
    """The :class:`PipelineTarget` of ``inner`` at ``parties`` (built once per process)."""
    from mpc_rr.simulation._world import fault_free

    key = (inner, int(parties))
    if key not in _TARGETS:
        t = PipelineTarget(inner, parties)
        t.traffic, t.other_run = fault_free(t)
        _TARGETS[key] = t
    return _TARGETS[key]
