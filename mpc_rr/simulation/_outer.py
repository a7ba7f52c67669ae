"""The pipeline's secure-sum dependence under fault schedules: a sum protocol inside the pipeline.

:class:`PipelineTarget` is a :class:`~mpc_rr.simulation.SimTarget` whose roles are the
RR-Clusters pipeline's (Domingo-Ferrer & Soria-Comas, Sec. 4.2: the exact bivariate counts
through a secure sum), with ``sum_protocol`` as its inner sum: a schedule's faults strike the
pipeline's messages and the inner sum's alike (party ids and links are the pipeline's).
Besides the invariants of every run (blame, termination, typed errors, the cost model of
the fault-free run), the coordinator's dependences must be the central computation over the
parties it says the dependence phase used (``parties_dependence``): the dependence matrix of
exactly their records.
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

__all__ = ["PipelineTarget", "pipeline_target"]


class _Pipeline(SumProtocol):
    """The pipeline as the simulator sees it (its name, its messages, party 0 takes part)."""

    steps = ("run",)
    hides_inputs = False  # the inner sum hides the records' counts; the release is public

    def __init__(self, inner: SumProtocol) -> None:
        from mpc_rr.pipeline import PIPELINE

        self.name = PIPELINE.name
        self.summary = f"{PIPELINE.name} over {inner.name}"
        self.inner = inner
        super().__init__()

    def check_name(self) -> None:
        return None

    def public(self, n: int, cells: int, *, run: str, max_value: int = 1, options: Any = None) -> Any:
        return None

    def role(self, *args: Any, **kwargs: Any) -> Role:
        raise UsageError("the pipeline's roles come from PipelineTarget")

    def message_types(self) -> tuple[Any, ...]:
        from mpc_rr.pipeline import PIPELINE_MESSAGES

        return tuple(PIPELINE_MESSAGES)

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
        from mpc_rr.pipeline import PipelineConfig, signing

        spec = sum_protocol(inner)
        if not spec.total_at_coordinator:
            raise UsageError(f"{spec.name} cannot be the pipeline's dependence sum (party 0 does not learn the total)")
        super().__init__(spec, parties)
        self.protocol = _Pipeline(spec)
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


_TARGETS: dict[tuple[str, int], PipelineTarget] = {}


def pipeline_target(inner: str, parties: int) -> PipelineTarget:
    """The :class:`PipelineTarget` of ``inner`` at ``parties`` (built once per process)."""
    from mpc_rr.simulation._world import fault_free

    key = (inner, int(parties))
    if key not in _TARGETS:
        t = PipelineTarget(inner, parties)
        t.traffic, t.other_run = fault_free(t)
        _TARGETS[key] = t
    return _TARGETS[key]
